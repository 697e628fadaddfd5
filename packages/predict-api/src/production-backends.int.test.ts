/**
 * End to end on the production backends: the real documents of `../shared/data/documents`
 * ingested through `POST /upsert` into Milvus (vectors), OpenSearch (BM25 and the document
 * registry) and Redis (jobs, memory), then the same questions asked through `POST /predict` as
 * against the embedded store, which must cite the same documents.
 *
 * Needs the servers of `scripts/services/start-all.sh` (addresses from `scripts/services/env.sh`);
 * skipped with a message outside CI when they are absent, failing in CI.
 */
import { mkdtempSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRagService, type DocumentInput, loadConfig, mintAccessToken, type RagService } from "@docqa/core";
import {
  DeterministicEmbeddings,
  integrationServer,
  isContinuousIntegration,
  sharedDataPath,
  sharedDocumentInputs,
  testName,
} from "@docqa/core/testing";
import { resolveServerConfig } from "@docqa/http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { predictRoutes } from "./predict-routes.js";
import { deleteRedisKeys, deleteSearchIndexes, dropMilvusCollections } from "./testing/remove-server-test-data.js";

const testFile = "production backends test";
const backends = [
  await integrationServer("redis", testFile),
  await integrationServer("milvus", testFile),
  await integrationServer("opensearch", testFile),
];
const [redisUrl, milvusUri, openSearchUrl] = backends.map((server) => server.url ?? "") as [string, string, string];
const documentsDirectory = sharedDataPath("documents");
const secret = "production-backends-test-secret-0123456789";
const orgId = testName("e2e");
const user = "analyst@example.org";

/** Questions over the shared documents, each answered by one file. */
const questions = [
  { question: "How do I install Rust with rustup on Linux or macOS?", file: "rust-book-ch01-01-installation.md" },
  { question: "What are the ownership rules in Rust, and when is a value dropped?", file: "rust-book-ch04-01-what-is-ownership.md" },
  { question: "How do I append a string slice to a String with push_str?", file: "rust-book-ch08-02-strings.md" },
  { question: "Which integer types and floating-point types does Rust have?", file: "rust-book-ch03-02-data-types.md" },
  { question: "Where does Norwich City football club play its home games?", file: "norwich-city-wikipedia.txt" },
];

const available = backends.every((server) => server.available) && documentsDirectory !== undefined;
if (documentsDirectory === undefined && isContinuousIntegration())
  throw new Error(`${testFile}: ../shared/data/documents is missing in CI`);
if (documentsDirectory === undefined) console.warn(`[docqa] ${testFile} skipped: ../shared/data/documents is missing`);

interface Deployment {
  name: string;
  service: RagService;
  app: ReturnType<typeof predictRoutes>;
  cleanup(): Promise<void>;
}

function deployment(name: string, environment: Record<string, string>): Deployment {
  const dataDir = mkdtempSync(join(tmpdir(), `docqa-${name}-`));
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: "warn", EMBED_DIMENSION: "64", ...environment });
  const service = createRagService({ config, embeddings: new DeterministicEmbeddings({ dimension: 64 }) });
  return {
    name,
    service,
    app: predictRoutes(service, { server: resolveServerConfig({ jwt: { secret } }) }),
    async cleanup() {
      await service.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

async function post(target: Deployment, path: string, body: unknown): Promise<Response> {
  const token = await mintAccessToken({ secret, algorithm: "HS256", issuer: "oauth-app" }, { email: user, orgId });
  return target.app.request(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
}

async function cited(target: Deployment, question: string): Promise<string[]> {
  const response = await post(target, "/predict", { query: question, user_info: { user_name: user } });
  expect(response.status, `${target.name}: ${await response.clone().text()}`).toBe(200);
  const body = (await response.json()) as { sources: Record<string, { metadata: { doc_id: string } }> };
  return [...new Set(Object.values(body.sources).map((source) => source.metadata.doc_id))];
}

describe.skipIf(!available)("production backends end to end (Milvus + OpenSearch + Redis)", () => {
  const base = testName("docqa_e2e");
  let embedded: Deployment;
  let servers: Deployment;
  let documents: Record<string, DocumentInput>;

  beforeAll(async () => {
    documents = await sharedDocumentInputs({ metadata: { source: "shared-data" } });
    embedded = deployment("embedded", {});
    servers = deployment("servers", {
      VECTORDB_URI: milvusUri,
      VECTORDB_COLLECTION: base,
      FULLTEXT_URI: openSearchUrl,
      FULLTEXT_INDEX: base,
      CACHE_URL: redisUrl,
    });
  });

  afterAll(async () => {
    await embedded?.cleanup();
    await servers?.cleanup();
    if (available) {
      await dropMilvusCollections(milvusUri, base);
      await deleteSearchIndexes(openSearchUrl, base);
      await deleteRedisKeys(redisUrl, orgId);
    }
  });

  it("ingests the shared documents through /upsert into both deployments", async () => {
    expect(Object.keys(documents).length).toBeGreaterThan(10);
    for (const target of [embedded, servers]) {
      const response = await post(target, "/upsert", { user_email: user, documents });
      expect(response.status, `${target.name}: ${await response.clone().text()}`).toBe(200);
      const body = (await response.json()) as { status: string; num_chunks: string };
      expect(body.status).toBe("success");
      expect(Number(body.num_chunks)).toBeGreaterThan(50);
    }
  });

  it.each(questions)("cites the same documents for: $question", async ({ question, file }) => {
    const fromEmbedded = await cited(embedded, question);
    const fromServers = await cited(servers, question);
    expect(fromEmbedded).toContain(file);
    expect(fromServers).toContain(file);
    expect(fromServers[0]).toBe(fromEmbedded[0]);
  });

  it("re-ingesting unchanged documents writes nothing and keeps answers", async () => {
    const response = await post(servers, "/upsert", { user_email: user, documents });
    expect(response.status).toBe(200);
    expect(await cited(servers, questions[0]?.question as string)).toContain(questions[0]?.file);
  });
});
