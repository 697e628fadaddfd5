/**
 * Fault test of the production backends: the service reaches Milvus and OpenSearch through
 * loopback TCP proxies that the test switches to "down" (connections refused and reset) and
 * "hang" (connections accepted, never answered) mid-run. While a server is unreachable, queries
 * and upserts get 503 `store_unavailable` within the configured `STORE_TIMEOUT_MS`; nothing
 * acknowledged before is lost; the service recovers by itself when the server returns.
 */
import { mkdtempSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRagService, loadConfig, mintAccessToken, type RagService } from "@docqa/core";
import { DeterministicEmbeddings, integrationServer, startTcpFaultProxy, type TcpFaultProxy, testName } from "@docqa/core/testing";
import { resolveServerConfig } from "@docqa/http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { predictRoutes } from "./predict-routes.js";
import { deleteSearchIndexes, dropMilvusCollections } from "./testing/remove-server-test-data.js";

const milvusServer = await integrationServer("milvus", "backend fault test");
const openSearchServer = await integrationServer("opensearch", "backend fault test");
const milvusUri = milvusServer.url ?? "";
const openSearchUrl = openSearchServer.url ?? "";
const secret = "backend-faults-test-secret-0123456789abcdef";
const storeTimeoutMs = 2000;
/** Time allowed beyond the store timeout for the request around it (scheduling on 2 shared cores). */
const slackMs = 1500;
const orgId = testName("faults");
const user = "ops@example.org";

function hostPort(url: string): string {
  const { hostname, port } = new URL(url);
  return `${hostname}:${port}`;
}

const available = milvusServer.available && openSearchServer.available;

describe.skipIf(!available)("backend faults (Milvus and OpenSearch behind fault proxies)", () => {
  let milvus: TcpFaultProxy;
  let openSearch: TcpFaultProxy;
  let service: RagService;
  let app: ReturnType<typeof predictRoutes>;
  let dataDir: string;
  const base = testName("docqa_faults");

  beforeAll(async () => {
    milvus = await startTcpFaultProxy(hostPort(milvusUri));
    openSearch = await startTcpFaultProxy(hostPort(openSearchUrl));
    dataDir = mkdtempSync(join(tmpdir(), "docqa-faults-"));
    const config = loadConfig({
      DATA_DIR: dataDir,
      LOG_LEVEL: "silent",
      EMBED_DIMENSION: "64",
      VECTORDB_URI: `http://127.0.0.1:${milvus.port}`,
      VECTORDB_COLLECTION: base,
      FULLTEXT_URI: `http://127.0.0.1:${openSearch.port}`,
      FULLTEXT_INDEX: base,
      STORE_TIMEOUT_MS: String(storeTimeoutMs),
    });
    service = createRagService({ config, embeddings: new DeterministicEmbeddings({ dimension: 64 }) });
    app = predictRoutes(service, { server: resolveServerConfig({ jwt: { secret } }) });
  });

  afterAll(async () => {
    await service?.close();
    await milvus?.close();
    await openSearch?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    await dropMilvusCollections(milvusUri, base);
    await deleteSearchIndexes(openSearchUrl, base);
  });

  const post = async (path: string, body: unknown) => {
    const token = await mintAccessToken({ secret, algorithm: "HS256", issuer: "oauth-app" }, { email: user, orgId });
    const started = performance.now();
    const response = await app.request(path, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });
    return { response, elapsedMs: performance.now() - started, body: (await response.json()) as Record<string, unknown> };
  };

  const upsert = (docId: string, content: string) =>
    post("/upsert", { user_email: user, documents: { [docId]: { title: docId, content, metadata: { acl: "|user:_all_|" } } } });

  const citedDocIds = async (query: string) => {
    const { response, body } = await post("/predict", { query, user_info: { user_name: user } });
    expect(response.status, JSON.stringify(body)).toBe(200);
    return Object.values(body.sources as Record<string, { metadata: { doc_id: string } }>).map((source) => source.metadata.doc_id);
  };

  it("acknowledges an upsert while every server is up", async () => {
    const { response, body } = await upsert("before-fault", "The emergency generator is tested every first Monday of the month.");
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(await citedDocIds("When is the emergency generator tested?")).toContain("before-fault");
  });

  for (const server of ["milvus", "opensearch"] as const) {
    for (const mode of ["down", "hang"] as const) {
      it(`answers 503 within STORE_TIMEOUT_MS when ${server} is ${mode}, then recovers with nothing lost`, async () => {
        const proxy = server === "milvus" ? milvus : openSearch;
        proxy.setMode(mode);
        try {
          const query = await post("/predict", { query: "When is the emergency generator tested?", user_info: { user_name: user } });
          expect(query.response.status, JSON.stringify(query.body)).toBe(503);
          expect(query.body).toMatchObject({ code: "store_unavailable" });
          expect(query.elapsedMs).toBeLessThan(storeTimeoutMs + slackMs);

          const write = await upsert(`during-${server}-${mode}`, `The ${server} ${mode} drill checks the fire doors on every floor.`);
          expect(write.response.status, JSON.stringify(write.body)).toBe(503);
          expect(write.elapsedMs).toBeLessThan(2 * storeTimeoutMs + slackMs);
        } finally {
          proxy.setMode("up");
        }
        // Recovery: the acknowledged document is still there, and the refused write succeeds now.
        expect(await citedDocIds("When is the emergency generator tested?")).toContain("before-fault");
        const retry = await upsert(`during-${server}-${mode}`, `The ${server} ${mode} drill checks the fire doors on every floor.`);
        expect(retry.response.status, JSON.stringify(retry.body)).toBe(200);
        expect(await citedDocIds(`${server} ${mode} drill fire doors`)).toContain(`during-${server}-${mode}`);
      });
    }
  }
});
