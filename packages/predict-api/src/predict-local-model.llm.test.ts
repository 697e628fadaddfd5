/**
 * `/predict` with the in-process model, configured as a user would (`RAG_LLM_PROVIDER=llama-cpp`,
 * `LOCALLLM_MODEL_PATH`): Qwen2.5-Coder-1.5B-Instruct Q4_K_M from `npm run models:test-llm`.
 * The model's tokens reach the client as Server-Sent Events before the final answer, and a call
 * beyond the model's sequences and queue is refused with 503 `model_busy` and `Retry-After`.
 * Part of `npm run test:llm`; skipped with a message without the model file, failing in CI.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createRagService,
  type DocqaConfigOverrides,
  type DocumentInput,
  disposeSharedLlamaCppRuntimes,
  mintAccessToken,
  type RagService,
  resolveConfig,
} from "@docqa/core";
import { isContinuousIntegration, testLanguageModelPath } from "@docqa/core/testing";
import { resolveServerConfig } from "@docqa/http";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { predictRoutes } from "./predict-routes.js";
import { readServerSentEvents } from "./testing/read-server-sent-events.js";

const modelPath = testLanguageModelPath("qwen2.5-coder-1.5b");
const missing = modelPath === undefined && !isContinuousIntegration();
const secret = "test-secret-with-enough-entropy-0123456789";
const orgA = "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f";
const ann = "ann@a.example";

const handbook: Record<string, DocumentInput> = {
  vacation: {
    title: "Vacation policy",
    content: "Employees receive 25 vacation days per year. Unused vacation days expire on March 31 of the following year.",
    metadata: { acl: "|user:_all_|" },
  },
  travel: {
    title: "Travel policy",
    content: "Travel expenses must be submitted within 30 days of the trip, with receipts.",
    metadata: { acl: "|user:_all_|" },
  },
};

const services: RagService[] = [];
const directories: string[] = [];
afterEach(async () => {
  await Promise.all(services.splice(0).map((service) => service.close()));
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});
afterAll(() => disposeSharedLlamaCppRuntimes());

async function harness(models: DocqaConfigOverrides["models"] = {}) {
  if (!modelPath) throw new Error("the test model is missing: run npm run models:test-llm");
  const dataDir = mkdtempSync(join(tmpdir(), "docqa-local-model-"));
  directories.push(dataDir);
  const service = createRagService({
    config: resolveConfig({
      stores: { dataDir },
      logging: { level: "silent" },
      ingestion: { useRaptor: false },
      // A loaded 2-core machine generates slowly: the default 60 s per model call is too short here.
      models: { provider: "llama-cpp", localModelPath: modelPath, timeoutMs: 600_000, ...models },
    }),
    embeddings: null,
  });
  services.push(service);
  const app = predictRoutes(service, { server: resolveServerConfig({ jwt: { secret } }) });
  const admin = await mintAccessToken({ secret, algorithm: "HS256", issuer: "oauth-app" }, { email: ann, orgId: orgA, role: "admin" });
  const upsert = await app.request("/upsert", {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${admin}` },
    body: JSON.stringify({ user_email: ann, documents: handbook }),
  });
  expect(upsert.status).toBe(200);
  const token = await mintAccessToken({ secret, algorithm: "HS256", issuer: "oauth-app" }, { email: ann, orgId: orgA });
  const predict = (query: string, headers: Record<string, string> = {}) =>
    app.request("/predict", {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}`, ...headers },
      body: JSON.stringify({ query, user_info: { user_name: ann } }),
    });
  return { service, predict };
}

describe.skipIf(missing)("/predict with the in-process model (RAG_LLM_PROVIDER=llama-cpp)", () => {
  it("streams the model's tokens as Server-Sent Events, then the final answer naming the model and its settings", async () => {
    const { predict } = await harness();
    const events = await readServerSentEvents(await predict("How many vacation days do employees get?", { Accept: "text/event-stream" }));
    const names = events.map((event) => event.event);
    expect(names.filter((name) => name === "token").length).toBeGreaterThan(1);
    expect(names.at(-1)).toBe("final");
    const tokens = events.filter((event) => event.event === "token").map((event) => (event.data as { text: string }).text);
    expect(tokens.join("")).toContain('"callout_answer"');
    expect(events.at(-1)?.data).toMatchObject({ model: "qwen2.5-coder-1.5b-instruct-q4_k_m", num_predict: 1024, num_ctx: 8192 });
  });

  it("refuses a request beyond LOCALLLM_SEQUENCES and LOCALLLM_QUEUE_SIZE with 503 model_busy and Retry-After", async () => {
    const { predict } = await harness({ localSequences: 1, localQueueSize: 0, numCtx: 2048 });
    const [first, second] = await Promise.all([
      predict("How many vacation days do employees get?"),
      predict("When must travel expenses be submitted?"),
    ]);
    const statuses = [first.status, second.status].sort();
    expect(statuses).toEqual([200, 503]);
    const refused = first.status === 503 ? first : second;
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
    expect(await refused.json()).toMatchObject({ code: "model_busy" });
  });
});
