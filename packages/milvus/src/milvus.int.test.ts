/**
 * The Milvus store against a real server at DOCQA_TEST_MILVUS_URI (set by
 * scripts/services/env.sh; no default port): the shared document stores contract, injection safety with hostile
 * document ids, metadata values and principals in both filter modes, and ACL pre-filtering that
 * fills top-k. Collections use a base name with the run id (`testName`) and are dropped afterwards. Without a
 * server the file skips, except in CI (`CI=true`), where it fails.
 */
import { randomUUID } from "node:crypto";
import { canRead, normalizePrincipal, type Principal, silentLogger } from "@docqa/core";
import { contractDocument, contractEmbeddingModel, describeDocumentStoresContract } from "@docqa/core/contract";
import { type ChunkFilter, type DocumentVersion, type MetadataCondition, stagedDocumentStores } from "@docqa/core/stores";
import { DeterministicEmbeddings, integrationServer, testName } from "@docqa/core/testing";
import { ConsistencyLevelEnum, MilvusClient } from "@zilliz/milvus2-sdk-node";
import { afterAll, describe, expect, it } from "vitest";
import { chunkFilterExpression, type FilterValueMode } from "./filter-expression.js";
import { createMilvusStore, type MilvusStore, type MilvusStoreSettings } from "./milvus-store.js";

const milvusServer = await integrationServer("milvus", "Milvus store integration tests");
const address = milvusServer.url ?? "";
const base = testName("docqa_test");
const serverVersion = milvusServer.available ? await versionOf(address) : undefined;
if (milvusServer.available && serverVersion === undefined) {
  const reason = `${address} accepts connections but answers no Milvus GetVersion within 5 s (DOCQA_TEST_MILVUS_URI)`;
  if (process.env.CI === "true") throw new Error(`Milvus store integration tests: ${reason}; CI=true requires it`);
  console.warn(`[docqa] Milvus store integration tests skipped: ${reason}`);
}
const embeddings = new DeterministicEmbeddings({ dimension: contractEmbeddingModel.dimension });

/** The server's version, or undefined when nothing answers within 5 s. */
async function versionOf(uri: string): Promise<string | undefined> {
  const client = new MilvusClient({
    address: uri,
    timeout: 5_000,
    logLevel: "error",
    telemetry: { enabled: false },
    __SKIP_CONNECT__: true,
  });
  try {
    client.connect(MilvusClient.sdkInfo.version);
    await client.connectPromise;
    return (await client.getVersion()).version;
  } catch {
    return undefined;
  } finally {
    await client.closeConnection().catch(() => undefined);
  }
}

/** Drops every collection of this run (names starting with the random base). */
async function dropCollections(): Promise<void> {
  const client = new MilvusClient({ address, timeout: 30_000, logLevel: "error", telemetry: { enabled: false } });
  try {
    const listed = await client.showCollections();
    for (const collection of listed.data) {
      if (collection.name.startsWith(base)) await client.dropCollection({ collection_name: collection.name });
    }
  } finally {
    await client.closeConnection();
  }
}

function store(settings: MilvusStoreSettings = {}): MilvusStore {
  return createMilvusStore({ address, collection: base, timeoutMs: 30_000, logger: silentLogger, ...settings });
}

/**
 * The documents Milvus itself selects with the filter expression the store builds (no post-check
 * with `matchesChunkFilter`), to prove that the engine's pre-filter is exact on its own.
 */
async function engineDocIds(milvus: MilvusStore, orgId: string, filter: ChunkFilter, mode: FilterValueMode): Promise<string[]> {
  const expression = chunkFilterExpression(filter, mode);
  if (!expression) return [];
  const client = new MilvusClient({ address, timeout: 30_000, logLevel: "error", telemetry: { enabled: false } });
  try {
    const response = await client.query({
      collection_name: milvus.chunkCollectionName(orgId),
      filter: expression.expression,
      ...(Object.keys(expression.values).length > 0 ? { exprValues: expression.values } : {}),
      output_fields: ["doc_id"],
      limit: 16_384,
      consistency_level: ConsistencyLevelEnum.Strong,
    });
    if (response.status.error_code !== "Success") throw new Error(`query failed: ${response.status.reason}`);
    return [...new Set(response.data.map((row) => String(row.doc_id)))].sort();
  } finally {
    await client.closeConnection();
  }
}

/** Whether the server accepts filter templating (Milvus 2.5+; not milvus-lite). */
async function supportsTemplating(collection: string): Promise<boolean> {
  const client = new MilvusClient({ address, timeout: 30_000, logLevel: "error", telemetry: { enabled: false } });
  try {
    const response = await client.query({ collection_name: collection, filter: "doc_id == {p}", exprValues: { p: "" }, limit: 1 });
    return response.status.error_code === "Success";
  } finally {
    await client.closeConnection();
  }
}

const docIds = (results: readonly { chunk: { docId: string } }[]) => [...new Set(results.map((result) => result.chunk.docId))].sort();

describe.skipIf(serverVersion === undefined)(`Milvus store on ${address} (${serverVersion})`, () => {
  afterAll(async () => {
    await dropCollections();
  }, 120_000);

  describeDocumentStoresContract(
    "milvus",
    async () => {
      const milvus = store();
      const parts = { vector: milvus, keyword: milvus, registry: milvus, logger: silentLogger };
      const stores = stagedDocumentStores(parts);
      return { stores, stagedParts: parts, close: () => stores.close() };
    },
    { timeoutMs: 120_000 },
  );

  for (const filterValues of ["auto", "literal"] as const) {
    describe(`filter values: ${filterValues}`, () => {
      it("cannot be tricked by quotes, brackets, operators or backslashes in document ids, metadata values and principals", async () => {
        const milvus = store({ filterValues });
        const stores = stagedDocumentStores({ vector: milvus, keyword: milvus, registry: milvus });
        const orgId = `injection-${randomUUID()}`;
        const hostile = [
          'a"b@example.org',
          "o'hara@example.org",
          "back\\slash",
          "x]y",
          "p||q",
          'x" or doc_id != "',
          "' or '1'='1",
          "close) or (true",
          "trailing\\",
          "line\nbreak",
        ];
        const documents = await Promise.all([
          contractDocument("secret", ["restricted manual"], { acl: "|user:boss@example.org|", owner: "boss@example.org" }),
          ...hostile.map((value, index) =>
            contractDocument(value, [`restricted note ${index}`], {
              acl: `|user:${value}|role:${value}|group:${value}|`,
              owner: "boss@example.org",
              metadata: { label: value, rank: index },
            }),
          ),
        ]);
        await stores.write(orgId, documents, { embeddingModel: contractEmbeddingModel });
        const query = Float32Array.from(await embeddings.embedQuery("restricted"));
        const mode: FilterValueMode =
          filterValues === "literal" || !(await supportsTemplating(milvus.chunkCollectionName(orgId))) ? "literal" : "template";
        for (const [index, value] of hostile.entries()) {
          const principal: Principal = { userName: value, roles: [value], groups: [`${value})`] };
          const allowed = documents
            .filter((document) => document.chunks.some((chunk) => canRead(normalizePrincipal(principal), chunk)))
            .map((document) => document.docId)
            .sort();
          const text = await milvus.searchByText(orgId, "restricted", { topK: 50, filter: { principal } });
          const vector = await milvus.searchByVector(orgId, query, contractEmbeddingModel, { topK: 50, filter: { principal } });
          expect(docIds(text), JSON.stringify(principal)).toEqual(allowed);
          expect(docIds(vector), JSON.stringify(principal)).toEqual(allowed);
          expect(await engineDocIds(milvus, orgId, { principal }, mode), `engine, ${JSON.stringify(principal)}`).toEqual(allowed);
          expect(await engineDocIds(milvus, orgId, { docIds: [value] }, mode)).toEqual([value]);
          expect(await engineDocIds(milvus, orgId, { metadata: [{ key: "label", op: "eq", value }] }, mode)).toEqual([value]);
          const admin = { docIds: [value] };
          expect(docIds(await milvus.searchByText(orgId, "restricted", { topK: 50, filter: admin }))).toEqual([value]);
          const byLabel = { metadata: [{ key: "label", op: "eq" as const, value }] };
          expect(docIds(await milvus.searchByText(orgId, "restricted", { topK: 50, filter: byLabel }))).toEqual([value]);
          const byLabels = { metadata: [{ key: "label", op: "in" as const, values: [value, `${value}"`] }] };
          expect(docIds(await milvus.searchByVector(orgId, query, contractEmbeddingModel, { topK: 50, filter: byLabels }))).toEqual([
            value,
          ]);
          const byRank = { metadata: [{ key: "rank", op: "gte" as const, value: index }] };
          expect(docIds(await milvus.searchByText(orgId, "restricted", { topK: 50, filter: byRank }))).toEqual(hostile.slice(index).sort());
        }
        expect(await milvus.contentHashes(orgId, hostile)).toEqual(new Map(hostile.map((value) => [value, `${value}:v1`])));
        await stores.write(orgId, [], { deleteDocIds: ["secret", hostile[5] as string] });
        expect(await milvus.count(orgId)).toBe(hostile.length - 1);
        await stores.close();
      }, 240_000);

      it("compares metadata values only with values of the same type", async () => {
        const milvus = store({ filterValues });
        const orgId = `types-${randomUUID()}`;
        const stores = stagedDocumentStores({ vector: milvus, keyword: milvus, registry: milvus });
        await stores.write(
          orgId,
          await Promise.all([
            contractDocument("number", ["typed value"], { metadata: { value: 7, ratio: 2.5, flag: true } }),
            contractDocument("string", ["typed value"], { metadata: { value: "7", ratio: "2.5", flag: "true" } }),
            contractDocument("float", ["typed value"], { metadata: { value: 7.5, ratio: 3, flag: false } }),
          ]),
          { embeddingModel: contractEmbeddingModel },
        );
        const run = async (metadata: MetadataCondition[]) =>
          docIds(await milvus.searchByText(orgId, "typed value", { topK: 10, filter: { metadata } }));
        expect(await run([{ key: "value", op: "eq", value: 7 }])).toEqual(["number"]);
        expect(await run([{ key: "value", op: "eq", value: "7" }])).toEqual(["string"]);
        expect(await run([{ key: "value", op: "gte", value: 7 }])).toEqual(["float", "number"]);
        expect(await run([{ key: "value", op: "gte", value: "10" }])).toEqual(["string"]);
        expect(await run([{ key: "ratio", op: "lte", value: 2.75 }])).toEqual(["number"]);
        expect(await run([{ key: "ratio", op: "gte", value: 3 }])).toEqual(["float"]);
        expect(await run([{ key: "flag", op: "eq", value: true }])).toEqual(["number"]);
        expect(await run([{ key: "flag", op: "in", values: [false, "true"] }])).toEqual(["float", "string"]);
        await stores.close();
      }, 120_000);
    });
  }

  it("fills a principal's top-10 with the 5 readable documents among 1,000 unreadable ones", async () => {
    const milvus = store();
    const stores = stagedDocumentStores({ vector: milvus, keyword: milvus, registry: milvus });
    const orgId = `prefilter-${randomUUID()}`;
    const principal: Principal = { userName: "reader@example.org", roles: ["analyst"], groups: ["finance"] };
    const unreadable: DocumentVersion[] = [];
    for (let index = 0; index < 1_000; index++) {
      unreadable.push(
        await contractDocument(`hidden-${index}`, [`merger plan merger plan merger plan ${index}`], {
          acl: index % 2 === 0 ? "|user:someone@example.org|" : "|user:_all_|deny:reader@example.org|",
          owner: "boss@example.org",
        }),
      );
    }
    const readable = await Promise.all([
      contractDocument("own", ["notes that mention the merger plan once"], { owner: "reader@example.org", acl: "" }),
      contractDocument("shared", ["a merger plan summary among other things"], { acl: "|user:reader@example.org|" }),
      contractDocument("role", ["merger plan for analysts, with unrelated text"], { acl: "|role:analyst|" }),
      contractDocument("group", ["finance remarks about a merger plan"], { acl: "|group:finance|" }),
      contractDocument("everyone", ["public merger plan overview and more words"], { acl: "|user:_all_|" }),
    ]);
    await stores.write(orgId, [...unreadable, ...readable], { embeddingModel: contractEmbeddingModel });
    const expected = readable.map((document) => document.docId).sort();
    const text = await milvus.searchByText(orgId, "merger plan", { topK: 10, filter: { principal } });
    expect(docIds(text)).toEqual(expected);
    // The engine's pre-filter alone selects exactly the readable documents.
    expect(await engineDocIds(milvus, orgId, { principal }, "literal")).toEqual(expected);
    const query = Float32Array.from(await embeddings.embedQuery("merger plan"));
    const vector = await milvus.searchByVector(orgId, query, contractEmbeddingModel, { topK: 10, filter: { principal } });
    expect(docIds(vector)).toEqual(expected);
    expect(vector.every((result) => result.score >= -1.0001 && result.score <= 1.0001)).toBe(true);
    expect(text.every((result) => result.score > 0)).toBe(true);
    await stores.close();
  }, 600_000);

  it("records the embedding model, text analysis and BM25 tokenizer in the collection's properties", async () => {
    const milvus = store();
    const orgId = `record-${randomUUID()}`;
    await milvus.write(orgId, [await contractDocument("doc", ["recorded settings"])], { embeddingModel: contractEmbeddingModel });
    const client = new MilvusClient({ address, timeout: 30_000, logLevel: "error", telemetry: { enabled: false } });
    try {
      const described = await client.describeCollection({ collection_name: milvus.chunkCollectionName(orgId) });
      const properties = Object.fromEntries(described.properties.map((property) => [property.key, String(property.value)]));
      expect(properties).toMatchObject({
        "docqa.schema": "1",
        "docqa.embedding_model": JSON.stringify(contractEmbeddingModel),
        "docqa.text_analysis": "docqa:english-porter-v2",
      });
      // Milvus 2.5.11+ has the whitespace tokenizer; milvus-lite and older servers fall back to standard.
      expect(["whitespace", "standard"]).toContain(properties["docqa.bm25_tokenizer"]);
      console.info(`[milvus.int.test] ${serverVersion}: BM25 tokenizer ${properties["docqa.bm25_tokenizer"]}`);
    } finally {
      await client.closeConnection();
    }
    await milvus.close();
  }, 120_000);

  it("loads collections again after they were released (as after a server restart)", async () => {
    const milvus = store();
    const stores = stagedDocumentStores({ vector: milvus, keyword: milvus, registry: milvus });
    const orgId = `reload-${randomUUID()}`;
    await stores.write(orgId, [await contractDocument("doc", ["released collections come back"])], {
      embeddingModel: contractEmbeddingModel,
    });
    expect(docIds(await milvus.searchByText(orgId, "released", { topK: 5, filter: {} }))).toEqual(["doc"]);
    const client = new MilvusClient({ address, timeout: 30_000, logLevel: "error", telemetry: { enabled: false } });
    try {
      for (const name of [milvus.chunkCollectionName(orgId), milvus.registryCollectionName(orgId)]) {
        expect((await client.releaseCollection({ collection_name: name })).error_code).toBe("Success");
      }
    } finally {
      await client.closeConnection();
    }
    expect(docIds(await milvus.searchByText(orgId, "released", { topK: 5, filter: {} }))).toEqual(["doc"]);
    expect(await milvus.contentHashes(orgId, ["doc"])).toEqual(new Map([["doc", "doc:v1"]]));
    await stores.close();
  }, 120_000);

  it("refuses unsafe metadata keys and answers missing organisations with nothing", async () => {
    const milvus = store();
    const orgId = `keys-${randomUUID()}`;
    await milvus.write(orgId, [await contractDocument("doc", ["key test"])], { embeddingModel: contractEmbeddingModel });
    await expect(
      milvus.searchByText(orgId, "key", {
        topK: 5,
        filter: { metadata: [{ key: 'type"] == "x" or true or metadata["y', op: "eq", value: 1 }] },
      }),
    ).rejects.toMatchObject({ code: "invalid_request" });
    expect(await milvus.searchByText(`none-${randomUUID()}`, "key", { topK: 5, filter: {} })).toEqual([]);
    expect(await milvus.count(`none-${randomUUID()}`)).toBe(0);
    await milvus.dropOrganisation(orgId);
    expect(await milvus.count(orgId)).toBe(0);
    await milvus.close();
  }, 120_000);

  it("holds vectors only when a search engine serves BM25: no BM25 fields, function or index, and no BM25 search", async () => {
    const milvus = store({ keywordIndex: false });
    const stores = stagedDocumentStores({ vector: milvus, keyword: milvus, registry: milvus });
    const orgId = `vectors-only-${randomUUID()}`;
    await stores.write(orgId, [await contractDocument("pump", ["the pump is primed before it is started"])], {
      embeddingModel: contractEmbeddingModel,
    });
    const client = new MilvusClient({ address, timeout: 30_000, logLevel: "error", telemetry: { enabled: false } });
    try {
      const described = await client.describeCollection({ collection_name: milvus.chunkCollectionName(orgId) });
      const fields = described.schema.fields.map((field) => field.name);
      expect(fields).toContain("embedding");
      expect(fields).not.toContain("bm25_text");
      expect(fields).not.toContain("bm25_sparse");
      expect(described.schema.functions ?? []).toEqual([]);
      const properties = Object.fromEntries(described.properties.map((property) => [property.key, String(property.value)]));
      expect(properties).toMatchObject({ "docqa.text_analysis": "none", "docqa.bm25_tokenizer": "none" });
    } finally {
      await client.closeConnection();
    }
    const query = Float32Array.from(await embeddings.embedQuery("the pump is primed before it is started"));
    expect(docIds(await milvus.searchByVector(orgId, query, contractEmbeddingModel, { topK: 5, filter: {} }))).toEqual(["pump"]);
    await expect(milvus.searchByText(orgId, "pump", { topK: 5, filter: {} })).rejects.toMatchObject({ code: "config_invalid" });
    expect(
      await milvus.searchHybrid(orgId, {
        text: "pump",
        vector: query,
        model: contractEmbeddingModel,
        depth: { vector: 5, keyword: 5 },
        weights: { vector: 0.5, keyword: 0.5 },
        topK: 10,
        filter: {},
      }),
    ).toBeUndefined();
    await stores.close();
  }, 120_000);

  it("fuses the vector and BM25 lists in one hybridSearch request under the ACL pre-filter", async () => {
    const milvus = store();
    const stores = stagedDocumentStores({ vector: milvus, keyword: milvus, registry: milvus });
    const orgId = `hybrid-${randomUUID()}`;
    const principal: Principal = { userName: "reader@example.org", roles: [], groups: ["plant"] };
    const texts = [
      "the feed pump is primed with water before it is started",
      "start the feed pump only after the suction valve is open",
      "the cooling tower fans run in pairs",
      "valve inspection happens every spring",
      "pump bearings are greased monthly",
      "the control room keeps a log of every start",
      "primed pumps start quietly; dry pumps overheat",
      "the water treatment plant doses chlorine",
    ];
    const documents = await Promise.all(
      texts.map((text, index) =>
        contractDocument(`doc-${index}`, [text], { acl: index === 6 ? "|user:someone@example.org|" : "|group:plant|" }),
      ),
    );
    await stores.write(orgId, documents, { embeddingModel: contractEmbeddingModel });
    const question = "how is the feed pump primed before a start";
    const vector = Float32Array.from(await embeddings.embedQuery(question));
    const filter = { principal };
    const fused = await milvus.searchHybrid(orgId, {
      text: question,
      vector,
      model: contractEmbeddingModel,
      depth: { vector: 4, keyword: 4 },
      weights: { vector: 0.5, keyword: 0.5 },
      topK: 8,
      filter,
    });
    expect(fused).toBeDefined();
    const ids = (fused ?? []).map((result) => result.chunk.docId);
    // The unreadable document never comes back, though it matches both lists.
    expect(ids).not.toContain("doc-6");
    // Every fused chunk came from one of the two lists the single searches return at the same depths.
    const vectorList = await milvus.searchByVector(orgId, vector, contractEmbeddingModel, { topK: 4, filter });
    const textList = await milvus.searchByText(orgId, question, { topK: 4, filter });
    expect(new Set(ids)).toEqual(new Set([...vectorList, ...textList].map((result) => result.chunk.docId)));
    // A chunk at the top of both lists is first.
    if (vectorList[0]?.chunk.docId === textList[0]?.chunk.docId) expect(ids[0]).toBe(vectorList[0]?.chunk.docId);
    console.info(`[milvus.int.test] ${serverVersion}: hybridSearch ${JSON.stringify(ids)}`);
    await stores.close();
  }, 120_000);
});
