import { createServer, type Server, type Socket } from "node:net";
import { type DocqaConfig, DocqaError, silentLogger } from "@docqa/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMilvusStore } from "./milvus-store.js";
import { milvusStoreFromConfig } from "./milvus-store-from-config.js";

/** A TCP port with nothing listening (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const reader = { userName: "reader@example.org", roles: [], groups: [] };

describe("MilvusStore without a server", () => {
  let silent: Server | undefined;
  let silentPort = 0;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    // Accepts connections and never answers: a server that hangs.
    silent = createServer((socket) => {
      sockets.push(socket);
    });
    await new Promise<void>((resolve) => silent?.listen(0, "127.0.0.1", resolve));
    silentPort = (silent.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => silent?.close(() => resolve()));
  });

  it("is created from the configuration without connecting", async () => {
    const store = milvusStoreFromConfig(
      {
        stores: {
          collection: "docs_collection",
          timeoutMs: 2_000,
          vectorIndex: { hnswConnectivity: 16, hnswExpansionSearch: 64 },
        },
        retrieval: { bm25K1: 0.9, bm25B: 0.4 },
      } as DocqaConfig,
      silentLogger,
      { uri: `http://127.0.0.1:${await closedPort()}`, token: undefined },
    );
    expect(store.name).toBe("milvus");
    expect(store.writes).toBe("staged");
    expect(store.chunkCollectionName("0f8fad5b-d9cb-469f-a165-70867728950e")).toBe("docs_collection_0f8fad5b_d9cb_469f_a165_70867728950e");
    expect(store.registryCollectionName("0f8fad5b-d9cb-469f-a165-70867728950e")).toBe(
      "docs_collection_0f8fad5b_d9cb_469f_a165_70867728950e_registry",
    );
    await store.close();
  });

  it("reports a refused connection as store_unavailable naming VECTORDB_URI", async () => {
    const port = await closedPort();
    const store = createMilvusStore({ address: `http://127.0.0.1:${port}`, timeoutMs: 5_000 });
    const error = await store
      .searchByText("org", "anything", { topK: 5, filter: { principal: reader } })
      .catch((caught: unknown) => caught);
    expect(DocqaError.isInstance(error) && error.code).toBe("store_unavailable");
    expect((error as DocqaError).component).toBe("milvus");
    expect((error as DocqaError).message).toContain(`VECTORDB_URI http://127.0.0.1:${port} is unreachable`);
    expect((error as DocqaError).cause).toBeDefined();
    await store.close();
  });

  it("gives up after STORE_TIMEOUT_MS when the server does not answer", async () => {
    const store = createMilvusStore({ address: `http://127.0.0.1:${silentPort}`, timeoutMs: 300 });
    const started = Date.now();
    const error = await store.count("org").catch((caught: unknown) => caught);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(DocqaError.isInstance(error) && error.code).toBe("store_unavailable");
    expect((error as DocqaError).message).toMatch(/within 300 ms \(STORE_TIMEOUT_MS\)|in time/);
    await store.close();
  });

  it("refuses an invalid base collection name", () => {
    expect(() => createMilvusStore({ collection: "bad-name" })).toThrowError(expect.objectContaining({ code: "config_invalid" }));
  });

  it("checks the query vector before contacting the server", async () => {
    const store = createMilvusStore({ address: `http://127.0.0.1:${await closedPort()}` });
    await expect(
      store.searchByVector("org", new Float32Array(3), { id: "m", dimension: 4 }, { topK: 3, filter: {} }),
    ).rejects.toMatchObject({ code: "embedding_dimension_mismatch" });
    expect(await store.searchByText("org", "x", { topK: 0, filter: {} })).toEqual([]);
    await store.close();
  });
});
