/**
 * Readiness and ingestion against the real backends (Milvus, OpenSearch, Redis), each reached
 * through a loopback fault proxy that the test puts "down" (connections refused) or "hang"
 * (connections accepted, never answered): `/readyz` of both endpoint sets answers 503 naming the
 * backend within `READINESS_TIMEOUT_MS` while `/healthz` and `/health` stay 200 (liveness), and
 * `/api/ingest` is refused with 503 `store_unavailable` before a job is created, like `/upsert`.
 * When the server is back, both recover by themselves.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRagService, loadConfig, mintAccessToken, type RagService } from "@docqa/core";
import {
  DeterministicEmbeddings,
  isContinuousIntegration,
  isTcpReachable,
  startTcpFaultProxy,
  type TcpFaultProxy,
  testName,
} from "@docqa/core/testing";
import { organisationIndexNames } from "@docqa/elasticsearch";
import { resolveServerConfig } from "@docqa/http";
import { createMilvusStore } from "@docqa/milvus";
import { predictRoutes } from "@docqa/predict-api";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chatRoutes } from "./chat-routes.js";

const milvusUri = process.env.DOCQA_TEST_MILVUS_URI ?? "http://127.0.0.1:19530";
const openSearchUrl = process.env.DOCQA_TEST_OPENSEARCH_URL ?? "http://127.0.0.1:9200";
const redisUrl = process.env.DOCQA_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const secret = "readiness-test-secret-0123456789abcdef";
const readinessTimeoutMs = 1000;
/** Time allowed beyond the readiness timeout for the request around it (scheduling on 2 shared cores). */
const slackMs = 1500;
const orgId = randomUUID();
const user = "ops@example.org";

function hostPort(url: string): string {
  const { hostname, port } = new URL(url);
  return `${hostname}:${port}`;
}

const available = (await Promise.all([milvusUri, openSearchUrl, redisUrl].map((url) => isTcpReachable(url)))).every(Boolean);
if (!available && isContinuousIntegration()) throw new Error("readiness test: Milvus, OpenSearch or Redis not reachable in CI");
if (!available) console.warn("skipping readiness test: start scripts/services/start-all.sh");

describe.skipIf(!available)("readiness and ingestion with each backend down (Milvus, OpenSearch, Redis behind fault proxies)", () => {
  const proxies = {} as Record<"milvus" | "opensearch" | "redis", TcpFaultProxy>;
  const base = testName("docqa_ready");
  let service: RagService;
  let setA: ReturnType<typeof predictRoutes>;
  let setB: ReturnType<typeof chatRoutes>;
  let dataDir: string;
  let token: string;

  beforeAll(async () => {
    proxies.milvus = await startTcpFaultProxy(hostPort(milvusUri));
    proxies.opensearch = await startTcpFaultProxy(hostPort(openSearchUrl));
    proxies.redis = await startTcpFaultProxy(hostPort(redisUrl));
    dataDir = mkdtempSync(join(tmpdir(), "docqa-readiness-"));
    const config = loadConfig({
      DATA_DIR: dataDir,
      LOG_LEVEL: "silent",
      EMBED_DIMENSION: "64",
      VECTORDB_URI: `http://127.0.0.1:${proxies.milvus.port}`,
      VECTORDB_COLLECTION: base,
      FULLTEXT_URI: `http://127.0.0.1:${proxies.opensearch.port}`,
      FULLTEXT_INDEX: base,
      CACHE_URL: `redis://127.0.0.1:${proxies.redis.port}`,
      STORE_TIMEOUT_MS: "2000",
      READINESS_TIMEOUT_MS: String(readinessTimeoutMs),
    });
    service = createRagService({ config, embeddings: new DeterministicEmbeddings({ dimension: 64 }) });
    const server = resolveServerConfig({ jwt: { secret } });
    setA = predictRoutes(service, { server });
    setB = chatRoutes(service, { server, rateLimit: false });
    token = await mintAccessToken({ secret, algorithm: "HS256", issuer: "oauth-app" }, { email: user, orgId });
  });

  afterAll(async () => {
    await service?.close();
    for (const proxy of Object.values(proxies)) await proxy.close();
    const milvus = createMilvusStore({ address: milvusUri, collection: base });
    await milvus.dropOrganisation(orgId).catch(() => undefined);
    await milvus.close();
    const names = organisationIndexNames(base, orgId);
    for (const index of [names.chunksIndex, names.registryIndex])
      await fetch(`${openSearchUrl}/${index}`, { method: "DELETE" }).catch(() => undefined);
    const redis = new Redis(redisUrl);
    const keys = await redis.keys(`docqa:job:${orgId}:*`);
    if (keys.length > 0) {
      await redis.zrem("docqa:jobs:unfinished", ...keys);
      await redis.del(...keys);
    }
    redis.disconnect();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const readyz = async (app: { request: (path: string) => Response | Promise<Response> }) => {
    const started = performance.now();
    const response = await app.request("/readyz");
    const body = (await response.json()) as {
      status: string;
      detail?: string;
      checks: { role: string; backend: string; status: string }[];
    };
    return { status: response.status, body, elapsedMs: performance.now() - started };
  };

  const ingest = async (name: string, content: string) => {
    const form = new FormData();
    form.append("files", new File([content], name));
    form.append("metadata", JSON.stringify({ acl: "|user:_all_|" }));
    const response = await setB.request("/api/ingest", { method: "POST", headers: { Authorization: `Bearer ${token}` }, body: form });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it("is ready while every server is up, and ingests", async () => {
    for (const app of [setA, setB]) {
      const { status, body } = await readyz(app);
      expect(status, JSON.stringify(body)).toBe(200);
      expect(body.checks.map((check) => `${check.role}:${check.backend}:${check.status}`)).toEqual([
        "startup:docqa:up",
        "vector:milvus:up",
        "keyword:opensearch:up",
        "jobs:redis:up",
        "memory:redis:up",
      ]);
    }
    const { status, body } = await ingest("generator.txt", "The emergency generator is tested every first Monday of the month.");
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ success: true, documentsProcessed: 1 });
  });

  const expected = {
    milvus: ["vector"],
    opensearch: ["keyword"],
    redis: ["jobs", "memory"],
  } as const;

  for (const server of ["milvus", "opensearch", "redis"] as const) {
    for (const mode of ["down", "hang"] as const) {
      it(`answers 503 naming ${server} when it is ${mode}, refuses /api/ingest, and recovers`, async () => {
        const proxy = proxies[server];
        proxy.setMode(mode);
        try {
          for (const app of [setA, setB]) {
            const { status, body, elapsedMs } = await readyz(app);
            expect(status, JSON.stringify(body)).toBe(503);
            expect(body.status).toBe("not_ready");
            const down = body.checks.filter((check) => check.status === "down").map((check) => `${check.role}:${check.backend}`);
            expect(down).toEqual(expected[server].map((role) => `${role}:${server}`));
            expect(body.detail).toContain(`${server} (`);
            expect(elapsedMs).toBeLessThan(readinessTimeoutMs + slackMs);
          }
          expect((await setA.request("/healthz")).status).toBe(200);
          expect((await setB.request("/health")).status).toBe(200);

          const refused = await ingest(`during-${server}-${mode}.txt`, `The ${server} ${mode} drill checks the fire doors.`);
          expect(refused.status, JSON.stringify(refused.body)).toBe(503);
          expect(refused.body).toMatchObject({ error: { code: "store_unavailable" } });
          expect((refused.body.error as { message: string }).message).toContain(`the ingestion was not accepted: ${server} (`);
        } finally {
          proxy.setMode("up");
        }
        // Recovery: ready again (clients reconnect by themselves), and the refused upload succeeds.
        let recovered = await readyz(setB);
        for (let attempt = 0; attempt < 20 && recovered.status !== 200; attempt++) {
          await new Promise((resolve) => setTimeout(resolve, 250));
          recovered = await readyz(setB);
        }
        expect(recovered.status, JSON.stringify(recovered.body)).toBe(200);
        const retry = await ingest(`during-${server}-${mode}.txt`, `The ${server} ${mode} drill checks the fire doors.`);
        expect(retry.status, JSON.stringify(retry.body)).toBe(200);
        expect(retry.body).toMatchObject({ success: true });
      });
    }
  }
});
