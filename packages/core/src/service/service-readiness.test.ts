import { describe, expect, it } from "vitest";
import { DocqaError } from "../errors/docqa-error.js";
import { createInMemoryJobStore } from "../jobs/in-memory-job-store.js";
import type { DocumentStores } from "../stores/document-stores.js";
import { assertStoresWritable, checkReadiness } from "./service-readiness.js";

/** A store double whose ping is scripted and counted. */
function pingable(name: string, ping: () => Promise<void>) {
  const calls = { count: 0 };
  return {
    calls,
    store: {
      name,
      ping: async () => {
        calls.count++;
        await ping();
      },
    },
  };
}

type Store = { name: string; ping(): Promise<unknown> };
function stores(vector: Store | undefined, keyword: Store) {
  return { vector, keyword, registry: keyword } as unknown as DocumentStores;
}

describe("checkReadiness", () => {
  it("asks a backend serving several roles once and reports it per role", async () => {
    const milvus = pingable("milvus", async () => {});
    const readiness = await checkReadiness({ stores: stores(milvus.store, milvus.store), jobStore: createInMemoryJobStore() }, 1000);
    expect(milvus.calls.count).toBe(1);
    expect(readiness.ready).toBe(true);
    expect(readiness.detail).toBeUndefined();
    expect(readiness.checks.map(({ role, backend, status }) => [role, backend, status])).toEqual([
      ["vector", "milvus", "up"],
      ["keyword", "milvus", "up"],
      ["jobs", "memory", "up"],
    ]);
  });

  it("reports a backend that fails, and one that does not answer within the timeout, as down", async () => {
    const milvus = pingable("milvus", async () => {
      throw new DocqaError("store_unavailable", "VECTORDB_URI http://milvus:19530 is unreachable (ECONNREFUSED)", { component: "milvus" });
    });
    const opensearch = pingable("opensearch", () => new Promise<void>(() => {}));
    const readiness = await checkReadiness({ stores: stores(milvus.store, opensearch.store) }, 50);
    expect(readiness.ready).toBe(false);
    expect(readiness.checks.map(({ role, status, error }) => [role, status, error])).toEqual([
      ["vector", "down", "VECTORDB_URI http://milvus:19530 is unreachable (ECONNREFUSED)"],
      ["keyword", "down", "no answer within 50 ms (READINESS_TIMEOUT_MS)"],
    ]);
    expect(readiness.detail).toBe(
      "milvus (vector index) is down: VECTORDB_URI http://milvus:19530 is unreachable (ECONNREFUSED); opensearch (keyword index) is down: no answer within 50 ms (READINESS_TIMEOUT_MS)",
    );
  });

  it("reports a degraded backend, stays ready, and accepts ingestion", async () => {
    const degraded = "cluster health yellow (2 of the 3 nodes of FULLTEXT_URI in the cluster; 3 shard copies unassigned)";
    const opensearch = { name: "opensearch", ping: async () => ({ degraded }) };
    const milvus = pingable("milvus", async () => {});
    const readiness = await checkReadiness({ stores: stores(milvus.store, opensearch) }, 1000);
    expect(readiness.ready).toBe(true);
    expect(readiness.checks.map(({ role, status }) => [role, status])).toEqual([
      ["vector", "up"],
      ["keyword", "degraded"],
    ]);
    expect(readiness.checks[1]?.degraded).toBe(degraded);
    expect(readiness.detail).toBe(`opensearch (keyword index) is degraded: ${degraded}`);
    await expect(assertStoresWritable({ stores: stores(milvus.store, opensearch) }, 1000)).resolves.toBeUndefined();
  });

  it("refuses ingestion with store_unavailable naming the store that is down", async () => {
    const opensearch = pingable("opensearch", async () => {
      throw new Error("connect ECONNREFUSED 127.0.0.1:9200");
    });
    const jobs = pingable("redis", async () => {});
    const error = await assertStoresWritable({ stores: stores(undefined, opensearch.store), jobStore: jobs.store as never }, 100).catch(
      (caught: unknown) => caught,
    );
    expect(DocqaError.isInstance(error) && error.code).toBe("store_unavailable");
    expect((error as DocqaError).publicMessage).toBe(
      "the ingestion was not accepted: opensearch (keyword index) is down: connect ECONNREFUSED 127.0.0.1:9200; retry when the store is back",
    );
    await expect(
      assertStoresWritable({ stores: stores(undefined, jobs.store), jobStore: jobs.store as never }, 100),
    ).resolves.toBeUndefined();
  });
});
