/**
 * The sweeper of uncommitted chunk versions on the real backends (Milvus for vectors, OpenSearch
 * for BM25 and the registry), end to end through the service: OpenSearch goes down in the middle
 * of an upsert, after Milvus has stored the new version; the write fails with 503 and, the
 * registry being unreachable, its clean-up cannot run, so Milvus keeps an uncommitted version and
 * its count overstates what is stored. Once OpenSearch is back, one sweep removes exactly that
 * version, reports it, and leaves the committed document answering as before.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRagService, type RagService, resolveConfig, type SweepReport } from "@docqa/core";
import { stagedDocumentStores } from "@docqa/core/stores";
import type { SweepEvent } from "@docqa/core/telemetry";
import {
  DeterministicEmbeddings,
  isContinuousIntegration,
  isTcpReachable,
  startTcpFaultProxy,
  type TcpFaultProxy,
  testName,
} from "@docqa/core/testing";
import { createSearchEngineIndex, organisationIndexNames } from "@docqa/elasticsearch";
import { createMilvusStore, type MilvusStore } from "@docqa/milvus";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const milvusUri = process.env.DOCQA_TEST_MILVUS_URI ?? "http://127.0.0.1:19530";
const openSearchUrl = process.env.DOCQA_TEST_OPENSEARCH_URL ?? "http://127.0.0.1:9200";
const orgId = randomUUID();
const principal = { userName: "ops@example.org", roles: [], groups: [] };

function hostPort(url: string): string {
  const { hostname, port } = new URL(url);
  return `${hostname}:${port}`;
}

const available = (await Promise.all([milvusUri, openSearchUrl].map((url) => isTcpReachable(url)))).every(Boolean);
if (!available && isContinuousIntegration()) throw new Error("sweeper test: Milvus or OpenSearch not reachable in CI");
if (!available) console.warn("skipping sweeper test: start scripts/services/start-all.sh");

describe.skipIf(!available)("sweeping what an interrupted upsert left in Milvus (OpenSearch down mid-write)", () => {
  const base = testName("docqa_sweep");
  let openSearch: TcpFaultProxy;
  let service: RagService;
  let milvus: MilvusStore;
  let dataDir: string;
  const reports: SweepReport[] = [];
  const sweptEvents: SweepEvent[] = [];
  let armed = false;

  beforeAll(async () => {
    openSearch = await startTcpFaultProxy(hostPort(openSearchUrl));
    dataDir = mkdtempSync(join(tmpdir(), "docqa-sweep-"));
    milvus = createMilvusStore({ address: milvusUri, collection: base });
    // Milvus as the service sees it: once armed, OpenSearch goes down right after Milvus has
    // stored a write, as if its server had died between the two engines' writes.
    const serviceMilvus = createMilvusStore({ address: milvusUri, collection: base });
    const failingAfterWrite = new Proxy(serviceMilvus, {
      get(target, property) {
        if (property === "write") {
          return async (...args: Parameters<MilvusStore["write"]>) => {
            await target.write(...args);
            if (armed) openSearch.setMode("down");
          };
        }
        const value = Reflect.get(target, property, target) as unknown;
        return typeof value === "function" ? (value as (...parameters: unknown[]) => unknown).bind(target) : value;
      },
    });
    const keyword = createSearchEngineIndex({ node: `http://127.0.0.1:${openSearch.port}`, indexBase: base });
    service = createRagService({
      config: resolveConfig({
        stores: { dataDir, sweepIntervalSeconds: 0, sweepGraceSeconds: 0 },
        embeddings: { dimension: 64 },
        logging: { level: "silent" },
      }),
      stores: stagedDocumentStores({ vector: failingAfterWrite, keyword, registry: keyword }),
      embeddings: new DeterministicEmbeddings({ dimension: 64 }),
      onSweep: (report) => reports.push(report),
      metrics: { swept: (event) => sweptEvents.push(event) },
    });
    await service.ready();
  });

  afterAll(async () => {
    await service?.close();
    await openSearch?.close();
    await milvus?.dropOrganisation(orgId).catch(() => undefined);
    await milvus?.close();
    const names = organisationIndexNames(base, orgId);
    for (const index of [names.chunksIndex, names.registryIndex])
      await fetch(`${openSearchUrl}/${index}`, { method: "DELETE" }).catch(() => undefined);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("removes the uncommitted version, counts it, and keeps the committed one", async () => {
    const handbook = "The emergency generator is tested every first Monday of the month by the facilities team.";
    expect(
      await service.upsert({
        orgId,
        principal,
        uploader: principal.userName,
        documents: { generator: { title: "Generator", content: handbook } },
      }),
    ).toMatchObject({ written: 1 });
    const committedChunks = await milvus.count(orgId);
    expect(committedChunks).toBeGreaterThan(0);

    armed = true;
    const replacement = `${handbook} Since March it is tested every second Tuesday instead, and the fuel is checked weekly. `.repeat(3);
    const failed = await service
      .upsert({ orgId, principal, uploader: principal.userName, documents: { generator: { title: "Generator", content: replacement } } })
      .catch((error: unknown) => error);
    armed = false;
    openSearch.setMode("up");
    expect(failed).toMatchObject({ code: "store_unavailable" });

    const versions = await milvus.storedVersions(orgId);
    expect(versions).toHaveLength(2);
    const leftover = await milvus.count(orgId);
    expect(leftover).toBeGreaterThan(committedChunks);

    const report = await service.sweep();
    expect(report.errors).toEqual([]);
    expect(report.removed).toEqual([{ index: "milvus", orgId, versions: 1, chunks: leftover - committedChunks }]);
    expect(reports.at(-1)).toBe(report);
    expect(sweptEvents.at(-1)).toEqual({
      versionsRemoved: 1,
      chunksRemoved: leftover - committedChunks,
      pending: 0,
      failures: 0,
      seconds: report.durationMs / 1000,
    });
    expect(await milvus.count(orgId)).toBe(committedChunks);
    const keyword = createSearchEngineIndex({ node: openSearchUrl, indexBase: base });
    expect(await keyword.count(orgId)).toBe(committedChunks);
    await keyword.close();

    // The search engine client reconnects by itself; wait until the service is ready again.
    for (let attempt = 0; attempt < 40 && !(await service.readiness()).ready; attempt++)
      await new Promise((resolve) => setTimeout(resolve, 250));
    const answer = await service.predict({ orgId, principal, query: "When is the emergency generator tested?" });
    expect(Object.values(answer.sources).map((source) => source.metadata.doc_id)).toContain("generator");
    expect((await service.sweep()).versionsRemoved).toBe(0);
  });
});
