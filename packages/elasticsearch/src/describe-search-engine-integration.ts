/**
 * The integration suite of this package, run against a real Elasticsearch or OpenSearch server by
 * `opensearch.int.test.ts` and `elasticsearch.int.test.ts`: the document stores contract of
 * `@docqa/core/contract` (BM25 only: no vector index), then this backend's own cases (index
 * layout, analyzer parity with core, BM25 parameters, partial bulk failures, ACL pre-filtering
 * that fills top-k, hostile metadata keys). Each run uses a `FULLTEXT_INDEX` base with the run id
 * (`testName`) and deletes its indexes afterwards. Not part of the package's exports.
 */
import { randomUUID } from "node:crypto";
import { DocqaError, type Principal } from "@docqa/core";
import { describeDocumentStoresContract } from "@docqa/core/contract";
import { createEnglishAnalyzer } from "@docqa/core/retrieval";
import { type ChunkRecord, chunkId, type DocumentVersion, stagedDocumentStores } from "@docqa/core/stores";
import { testName } from "@docqa/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createElasticsearchClient } from "./elasticsearch-client.js";
import { analyzerName } from "./index-definitions.js";
import { createOpenSearchClient } from "./opensearch-client.js";
import type { SearchEngine, SearchEngineClient } from "./search-engine-client.js";
import { createSearchEngineIndex, type SearchEngineIndex, type SearchEngineIndexSettings } from "./search-engine-index.js";

/** Where the server under test is. */
export interface SearchEngineTarget {
  engine: SearchEngine;
  /** The server URL, or undefined when none is configured. */
  url: string | undefined;
  /** The environment variable naming the URL, for messages. */
  variable: string;
  /** Fail instead of skipping when the server is absent (continuous integration). */
  required: boolean;
}

const product = { elasticsearch: "Elasticsearch", opensearch: "OpenSearch" } as const;

/** Whether `url` answers `GET /` as `engine`, within 5 seconds; the reason when it does not. */
async function probe(engine: SearchEngine, url: string): Promise<string | undefined> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
    const body = (await response.json().catch(() => ({}))) as { version?: { distribution?: string } };
    const found: SearchEngine = body.version?.distribution === "opensearch" ? "opensearch" : "elasticsearch";
    if (!body.version) return `${url} answered HTTP ${response.status} without a version`;
    return found === engine ? undefined : `${url} is ${product[found]}, not ${product[engine]}`;
  } catch (error) {
    return `${url} is unreachable (${(error as Error).message})`;
  }
}

/** Creates the engine's raw client (for set-up and clean-up requests). */
function rawClient(engine: SearchEngine, url: string): SearchEngineClient {
  const settings = { node: url, requestTimeoutMs: 60_000 };
  return engine === "opensearch" ? createOpenSearchClient(settings) : createElasticsearchClient(settings);
}

/** Deletes every index whose name starts with `<base>_`. */
async function deleteIndexes(client: SearchEngineClient, base: string): Promise<void> {
  const response = await client.request({
    method: "GET",
    path: `/_cat/indices/${base}_*`,
    querystring: { format: "json", h: "index", expand_wildcards: "all" },
  });
  const names = (response.body as { index: string }[]).map((row) => row.index).filter((name) => name.startsWith(`${base}_`));
  for (let start = 0; start < names.length; start += 40) {
    await client.request({ method: "DELETE", path: `/${names.slice(start, start + 40).join(",")}` });
  }
}

function chunkOf(docId: string, chunkIndex: number, text: string, overrides: Partial<ChunkRecord> = {}): ChunkRecord {
  return {
    id: chunkId(docId, chunkIndex),
    docId,
    chunkIndex,
    text,
    title: "",
    source: "integration",
    ownerId: "owner@example.org",
    acl: "|user:_all_|",
    metadata: {},
    contentHash: `${docId}:v1`,
    ...overrides,
  };
}

function versionOf(docId: string, chunks: ChunkRecord[]): DocumentVersion {
  return { docId, contentHash: chunks[0]?.contentHash ?? `${docId}:v1`, chunks };
}

/**
 * Registers the suite for `target`. Must be awaited at the top level of a test file (it probes the
 * server first, to skip or fail cleanly).
 */
export async function describeSearchEngineIntegration(target: SearchEngineTarget): Promise<void> {
  const name = product[target.engine];
  const absence = target.url ? await probe(target.engine, target.url) : `${target.variable} is not set`;
  if (absence !== undefined || !target.url) {
    describe(`${name} integration`, () => {
      if (target.required) {
        it(`needs ${name}`, () => {
          throw new Error(`${name} is required in CI but ${absence}: start it (.ci/run) or set ${target.variable}`);
        });
      } else {
        it.skip(`skipped: ${absence}; start ${name} and set ${target.variable} to run`, () => undefined);
      }
    });
    return;
  }
  const url = target.url;
  const base = testName("docqa_test");
  const settings: SearchEngineIndexSettings = { node: url, engine: target.engine, indexBase: base, replicas: 0, requestTimeoutMs: 30_000 };

  describeDocumentStoresContract(
    `${target.engine} (BM25 only)`,
    async () => {
      const store = createSearchEngineIndex(settings);
      const parts = { vector: undefined, keyword: store, registry: store };
      const stores = stagedDocumentStores(parts);
      return {
        stores,
        stagedParts: parts,
        async close() {
          await stores.close();
          const client = rawClient(target.engine, url);
          await deleteIndexes(client, base);
          await client.close();
        },
      };
    },
    { timeoutMs: 90_000, vector: false },
  );

  describe(`${name} backend`, () => {
    const ownBase = `${base}x`;
    let store: SearchEngineIndex;
    let client: SearchEngineClient;
    const organisation = (label: string) => `it-${label}-${randomUUID()}`;
    const reader: Principal = { userName: "reader@example.org", roles: ["staff"], groups: [] };

    beforeAll(() => {
      store = createSearchEngineIndex({ ...settings, indexBase: ownBase, engine: "auto" });
      client = rawClient(target.engine, url);
    });
    afterAll(async () => {
      await store?.close();
      if (client) {
        await deleteIndexes(client, ownBase);
        await client.close();
      }
    }, 120_000);

    it("detects the engine, and creates aliased indexes with strict mappings and the configured BM25", async () => {
      expect(store.name).toBe("search-engine");
      const orgId = organisation("layout");
      await store.write(orgId, [versionOf("a", [chunkOf("a", 0, "alpha")])]);
      expect(store.name).toBe(target.engine);
      const names = store.indexNames(orgId);
      const aliases = (await client.request({ method: "GET", path: `/${names.chunks}/_alias` })).body as Record<
        string,
        { aliases: object }
      >;
      expect(Object.keys(aliases)).toEqual([names.chunksIndex]);
      expect(Object.keys(aliases[names.chunksIndex]?.aliases ?? {})).toEqual([names.chunks]);
      const mapping = (await client.request({ method: "GET", path: `/${names.chunks}/_mapping` })).body as Record<
        string,
        { mappings: { dynamic: string; properties: Record<string, { type?: string }> } }
      >;
      const mappings = mapping[names.chunksIndex]?.mappings;
      expect(mappings?.dynamic).toBe("strict");
      expect(mappings?.properties.grants?.type).toBe("keyword");
      expect(mappings?.properties.meta?.type).toBe("nested");
      const indexSettings = (await client.request({ method: "GET", path: `/${names.chunks}/_settings` })).body as Record<
        string,
        { settings: { index: { similarity: Record<string, Record<string, string>> } } }
      >;
      expect(indexSettings[names.chunksIndex]?.settings.index.similarity.docqa_bm25).toMatchObject({ type: "BM25", k1: "0.9", b: "0.4" });
    });

    it("fails a write where the index was deleted, instead of auto-creating an unmapped one, and creates it again next time", async () => {
      const orgId = organisation("alias");
      await store.write(orgId, [versionOf("a", [chunkOf("a", 0, "alpha")])]);
      const names = store.indexNames(orgId);
      await client.request({ method: "DELETE", path: `/${names.chunksIndex}` });
      const error = await store.write(orgId, [versionOf("b", [chunkOf("b", 0, "beta")])]).catch((caught: unknown) => caught);
      expect(DocqaError.isInstance(error) && error.code).toBe("store_unavailable");
      expect((error as Error).message).toContain("index_not_found_exception");
      const exists = await client.request({ method: "HEAD", path: `/${names.chunks}` }, { allowStatus: [404] });
      expect(exists.statusCode).toBe(404);
      await store.write(orgId, [versionOf("c", [chunkOf("c", 0, "gamma")])]); // creates the index again, mapped
      expect(await store.count(orgId)).toBe(1);
      const mapping = (await client.request({ method: "GET", path: `/${names.chunks}/_mapping` })).body as Record<string, unknown>;
      expect(Object.keys(mapping)).toEqual([names.chunksIndex]);
    });

    it("analyses text like core's English analyzer", async () => {
      const orgId = organisation("analyzer");
      await store.write(orgId, [versionOf("a", [chunkOf("a", 0, "x")])]);
      const samples = [
        "The runners' running shoes don't fit John's feet; cafés and naïve Ünïcödé 東京都の天気 ＡＢＣ",
        "Quarterly budget reports were presented by the finance committee at their annual meetings.",
        "Dogs bark loudly at the postman every morning, while cats purr and sleep in the sun all day long.",
        "Organisations generalise relational databases, connections, happiness, agreed, conditional, hopefully.",
      ];
      const analyzer = createEnglishAnalyzer();
      for (const text of samples) {
        const response = await client.request({
          method: "POST",
          path: `/${store.indexNames(orgId).chunks}/_analyze`,
          body: { analyzer: analyzerName, text },
        });
        const tokens = (response.body as { tokens: { token: string }[] }).tokens.map((token) => token.token);
        expect(tokens, text).toEqual(analyzer.analyze(text));
      }
    });

    it("scores with BM25 at k1 = 0.9 and b = 0.4 over title and text (Lucene omits the constant factor k1 + 1)", async () => {
      const orgId = organisation("bm25");
      const texts = ["apple banana", "apple apple cherry date", "banana cherry", "elderberry fig grape apple kiwi lemon mango"];
      await store.write(orgId, [
        versionOf(
          "fruit",
          texts.map((text, index) => chunkOf("fruit", index, text, { title: "fruit" })),
        ),
      ]);
      const results = await store.searchByText(orgId, "apple", { topK: 10, filter: {} });
      const analyzer = createEnglishAnalyzer();
      const lengths = texts.map((text) => analyzer.analyze(`fruit\n${text}`).length);
      const average = lengths.reduce((sum, length) => sum + length, 0) / lengths.length;
      const containing = texts.filter((text) => text.includes("apple")).length;
      const idf = Math.log(1 + (texts.length - containing + 0.5) / (containing + 0.5));
      const expected = texts.map((text, index) => {
        const frequency = analyzer.analyze(text).filter((term) => term === "appl").length;
        const length = lengths[index] as number;
        return frequency === 0 ? 0 : (idf * frequency) / (frequency + 0.9 * (1 - 0.4 + (0.4 * length) / average));
      });
      expect(results).toHaveLength(3);
      for (const result of results) expect(result.score).toBeCloseTo(expected[result.chunk.chunkIndex] as number, 4);
    });

    it("reports a partial bulk failure with the failed item, and the staged protocol leaves nothing visible", async () => {
      const orgId = organisation("bulk");
      const immense = `${"x".repeat(40_000)}@example.org`; // a keyword term over 32,766 bytes
      const documents = [
        versionOf("good", [chunkOf("good", 0, "partial failure good chunk")]),
        versionOf("bad", [
          chunkOf("bad", 0, "partial failure bad chunk one"),
          chunkOf("bad", 1, "partial failure bad chunk two", { ownerId: immense }),
        ]),
      ];
      const direct = await store.write(orgId, documents).catch((caught: unknown) => caught);
      expect(DocqaError.isInstance(direct) && direct.code).toBe("store_unavailable");
      expect((direct as Error).message).toContain('1 of 3 bulk items failed: index "bad::1::bad:v1": 400');
      expect(await store.count(orgId)).toBe(2); // the items that succeeded are stored, uncommitted

      const stores = stagedDocumentStores({ keyword: store, registry: store });
      const staged = await stores.write(orgId, documents).catch((caught: unknown) => caught);
      expect(DocqaError.isInstance(staged) && staged.code).toBe("store_unavailable");
      expect(await store.contentHashes(orgId, ["good", "bad"])).toEqual(new Map());
      expect(await stores.visible(orgId, await store.searchByText(orgId, "partial failure", { topK: 10, filter: {} }))).toEqual([]);
      expect(await store.count(orgId)).toBe(0); // rolled back by the protocol's prune
    });

    it("fills top-k with readable chunks among many better-scoring unreadable ones", async () => {
      const orgId = organisation("topk");
      const unreadable = Array.from({ length: 600 }, (_, index) =>
        versionOf(`private-${index}`, [
          chunkOf(`private-${index}`, 0, `budget budget budget budget report ${index}`, {
            acl: "|role:board|",
            ownerId: "boss@example.org",
          }),
        ]),
      );
      const readable = ["by-role", "by-user", "by-all"].map((docId, index) =>
        versionOf(docId, [
          chunkOf(docId, 0, `a long and rambling note that mentions the budget once, among many other words, ${docId}`, {
            acl: ["|role:staff|", "|user:reader@example.org|", "|user:_all_|"][index] as string,
            ownerId: "boss@example.org",
          }),
        ]),
      );
      await store.write(orgId, [...unreadable, ...readable]);
      const results = await store.searchByText(orgId, "budget", { topK: 3, filter: { principal: reader } });
      expect(results.map((result) => result.chunk.docId).sort()).toEqual(["by-all", "by-role", "by-user"]);
      const unfiltered = await store.searchByText(orgId, "budget", { topK: 3, filter: {} });
      expect(unfiltered.every((result) => result.chunk.docId.startsWith("private-"))).toBe(true);
    });

    it("treats hostile metadata keys, values and document ids as data", async () => {
      const orgId = organisation("hostile");
      const keys = ["a.b", "*", '"}]', "meta.string", "__proto__", "constructor", "x OR y", "(", "\\"];
      const metadata = JSON.parse(JSON.stringify(Object.fromEntries(keys.map((key, index) => [key, `value-${index}`])))) as Record<
        string,
        unknown
      >;
      const hostileId = 'doc "*" OR 1=1 \\ )';
      await store.write(orgId, [
        versionOf(hostileId, [chunkOf(hostileId, 0, "hostile metadata chunk", { metadata })]),
        versionOf("plain", [chunkOf("plain", 0, "hostile metadata plain chunk", { metadata: { a: { b: "value-0" } } })]),
      ]);
      for (const [index, key] of keys.entries()) {
        const found = await store.searchByText(orgId, "hostile", {
          topK: 10,
          filter: { metadata: [{ key, op: "eq", value: `value-${index}` }] },
        });
        expect(
          found.map((result) => result.chunk.docId),
          key,
        ).toEqual([hostileId]);
      }
      const [first] = await store.searchByText(orgId, "hostile", { topK: 1, filter: { docIds: [hostileId] } });
      expect(Object.keys(first?.chunk.metadata ?? {}).sort()).toEqual([...keys].sort());
      expect(await store.searchByText(orgId, "hostile", { topK: 10, filter: { docIds: ["*"] } })).toEqual([]);
      expect(
        await store.searchByText(orgId, "hostile", { topK: 10, filter: { metadata: [{ key: "a", op: "eq", value: "value-0" }] } }),
      ).toEqual([]);
      const wildcardQuery = await store.searchByText(orgId, "* OR hostile:*", { topK: 10, filter: {} });
      expect(wildcardQuery.map((result) => result.chunk.docId).sort()).toEqual([hostileId, "plain"].sort());
    });
  });
}
