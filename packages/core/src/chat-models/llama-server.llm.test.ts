/**
 * The openai provider against a real OpenAI-compatible server: llama.cpp's `llama-server` with
 * Qwen2.5-Coder-1.5B-Instruct Q4_K_M, started by `scripts/services/start-llama-server.sh` (its URL
 * in `DOCQA_TEST_LLAMA_SERVER_URL`). The model is configured as a user would
 * (`RAG_LLM_PROVIDER=openai`, `HOSTEDLLM_BASE_URL`, `RAG_LLM_STRUCTURED_OUTPUT=auto`), so the
 * chat model contract also shows the structured-output detection: llama-server does not honour the
 * forced tool call LangChain sends (older builds reject it, current ones let the model write the
 * call as text), and docqa switches that model to `json_schema`. Part of
 * `npm run test:llm`; skipped with a message without the server, failing in CI (`CI=true`).
 */
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../config/load-config.js";
import { describeChatModelContract } from "../contract/describe-chat-model-contract.js";
import { intentJsonSchema, intentMessages } from "../prompts/prompts.js";
import { isContinuousIntegration } from "../testing/shared-data.js";
import { testLlamaServerUrl } from "../testing/test-language-models.js";
import { resiliencePolicy } from "./call-with-resilience.js";
import { chatModelFromConfig } from "./chat-model-from-config.js";
import { defaultStructuredOutputMethod, detectedStructuredOutputMethod, invokeStructured } from "./invoke-structured.js";

const serverUrl = testLlamaServerUrl();
const missing =
  serverUrl === undefined && !isContinuousIntegration()
    ? "no llama-server: run scripts/services/start-llama-server.sh && source scripts/services/env.sh"
    : undefined;

/** A model configured as a user would, against the test server. */
async function configuredModel() {
  if (!serverUrl) throw new Error("DOCQA_TEST_LLAMA_SERVER_URL is not set: start scripts/services/start-llama-server.sh");
  const choice = await chatModelFromConfig(
    resolveConfig({ models: { provider: "openai", hostedBaseUrl: `${serverUrl}/v1`, generatorModel: "qwen2.5-coder-1.5b-instruct" } }),
    // The client's own timeout is a backstop behind the tests' (a loaded 2-core machine is slow).
    { timeoutMs: 600_000 },
  );
  if (choice.status !== "ready") throw new Error(choice.reason);
  return choice.model;
}

describeChatModelContract(
  "openai provider on llama-server, Qwen2.5-Coder-1.5B-Instruct Q4_K_M",
  async () => ({ model: await configuredModel(), close: async () => {} }),
  { skip: missing },
);

describe.skipIf(missing !== undefined)("structured-output detection on llama-server", () => {
  it("switches a model to json_schema once llama-server does not honour the forced tool call, and the call still answers", async () => {
    const model = await configuredModel();
    expect(detectedStructuredOutputMethod(model)).toBeUndefined();
    const output = await invokeStructured({
      model,
      schema: intentJsonSchema,
      name: "intent",
      method: defaultStructuredOutputMethod(model),
      messages: intentMessages("Good morning!"),
      policy: resiliencePolicy({ timeoutMs: 300_000, maxRetries: 0 }),
      component: "test",
      modelName: "qwen2.5-coder-1.5b-instruct",
    });
    expect(detectedStructuredOutputMethod(model)).toBe("jsonSchema");
    expect(output.candidates[0]).toMatchObject({ intent: "greeting" });
    expect(output.attempts).toBe(2);
  });
});
