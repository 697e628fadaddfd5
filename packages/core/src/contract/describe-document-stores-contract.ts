/**
 * The contract every store bundle passes: the embedded store, and the server backends (Milvus,
 * Elasticsearch/OpenSearch) on real servers. It exercises stores through {@link DocumentStores},
 * the same protocol the service uses, so a backend passes only if the whole write and read path
 * holds: replace and delete, organisation isolation, ACL pre-filtering that fills top-k, safe
 * filters, metadata filters, sorted and normalisable scores, empty organisations, unicode text,
 * a 10,000-chunk batch, the embedding model check, the registry's document records and paged,
 * principal-filtered listings, counting a query's matches under the same filters, reading a
 * version's stored chunks back with their embeddings,
 * deletion of every chunk, vector, full-text entry and summary of a document, a health check
 * (`ping`) of every part, and, for staged stores, that a write failing half-way leaves nothing
 * visible and that the sweeper removes a version an interrupted write left uncommitted.
 *
 * @example
 * ```ts
 * import { describeDocumentStoresContract } from "@docqa/core/contract";
 * describeDocumentStoresContract("my store", async () => ({ stores: myStores(), close: async () => {} }));
 * ```
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canRead } from "../acl/evaluate-access.js";
import { normalizePrincipal, type Principal } from "../acl/principal.js";
import { DocqaError } from "../errors/docqa-error.js";
import { silentLogger } from "../logging/logger.js";
import { normalizeScores } from "../retrieval/normalize-scores.js";
import type { ChunkFilter } from "../stores/chunk-filter.js";
import { type ChunkRecord, chunkId, type DocumentVersion, type ScoredChunk } from "../stores/chunk-record.js";
import type { DocumentInfo, DocumentQuery, DocumentRecord } from "../stores/document-registry.js";
import { type DocumentStores, type StagedStoreParts, stagedDocumentStores } from "../stores/document-stores.js";
import { createUncommittedSweeper, type SweepReport } from "../stores/sweep-uncommitted.js";
import { isSweepable, type SweepableIndex } from "../stores/sweepable-index.js";
import type { EmbeddingModelInfo } from "../stores/vector-index.js";
import { DeterministicEmbeddings } from "../testing/deterministic-embeddings.js";

/** What a contract factory returns. */
export interface ContractSubject {
  /** The stores under test. Organisations are fresh per test (random ids), so one server may serve all tests. */
  stores: DocumentStores;
  /** For staged stores: the parts, so the suite can inject failures. */
  stagedParts?: StagedStoreParts | undefined;
  /** Releases the subject (close connections, drop collections). */
  close(): Promise<void>;
}

/** Options of {@link describeDocumentStoresContract}. */
export interface ContractOptions {
  /** Per-test timeout in milliseconds; default 60,000 (servers index asynchronously). */
  timeoutMs?: number;
  /** Run the 10,000-chunk batch test; default true. */
  largeBatch?: boolean;
  /**
   * Whether the stores hold vectors; default true. Keyword-only deployments (a full-text server
   * with `VECTOR_STORE=none`) set false, which skips the vector-only tests.
   */
  vector?: boolean;
}

/** The embedding model of contract chunks: hashed bag of words, 64 dimensions. */
export const contractEmbeddingModel: EmbeddingModelInfo = { id: "docqa-deterministic-hash-64", dimension: 64 };

const embeddings = new DeterministicEmbeddings({ dimension: contractEmbeddingModel.dimension });
const stranger: Principal = { userName: "stranger@example.org", roles: [], groups: [] };
const reader: Principal = { userName: "reader@example.org", roles: ["staff"], groups: ["readers"] };

/** Options of {@link contractDocument}. */
export interface ContractDocumentOptions {
  acl?: string;
  owner?: string;
  version?: string;
  metadata?: Record<string, unknown>;
  derivedFrom?: readonly string[];
  title?: string;
  /** The registry's description (default: read from the first chunk). */
  info?: DocumentInfo;
}

/** A document version with one chunk per text, embedded with the deterministic model. */
export async function contractDocument(
  docId: string,
  texts: readonly string[],
  options: ContractDocumentOptions = {},
): Promise<DocumentVersion> {
  const contentHash = `${docId}:${options.version ?? "v1"}`;
  const vectors = await embeddings.embedDocuments([...texts]);
  const chunks: ChunkRecord[] = texts.map((text, chunkIndex) => ({
    id: chunkId(docId, chunkIndex),
    docId,
    chunkIndex,
    text,
    title: options.title ?? `Title of ${docId}`,
    source: "contract",
    ownerId: options.owner ?? "owner@example.org",
    acl: options.acl ?? "|user:_all_|",
    metadata: { doc_id: docId, chunk_index: chunkIndex, type: "txt", ...options.metadata },
    contentHash,
    embedding: Float32Array.from(vectors[chunkIndex] as number[]),
  }));
  return { docId, contentHash, chunks, derivedFrom: options.derivedFrom, info: options.info };
}

async function queryVector(text: string): Promise<Float32Array> {
  return Float32Array.from(await embeddings.embedQuery(text));
}

/** Runs both retrievers, keeping only committed versions, as the service does. */
async function searchBoth(stores: DocumentStores, orgId: string, query: string, topK: number, filter: ChunkFilter) {
  const keyword = await stores.visible(orgId, await stores.keyword.searchByText(orgId, query, { topK, filter }));
  const vector = stores.vector
    ? await stores.visible(
        orgId,
        await stores.vector.searchByVector(orgId, await queryVector(query), contractEmbeddingModel, { topK, filter }),
      )
    : undefined;
  return { keyword, vector };
}

const docIdsOf = (results: readonly ScoredChunk[] | undefined) => [...new Set((results ?? []).map((result) => result.chunk.docId))].sort();

/**
 * Registers the contract suite for a store bundle. `create` is called once; each test uses fresh
 * organisation ids.
 */
export function describeDocumentStoresContract(name: string, create: () => Promise<ContractSubject>, options: ContractOptions = {}): void {
  const timeout = options.timeoutMs ?? 60_000;
  describe(`document stores contract: ${name}`, () => {
    let subject: ContractSubject;
    const organisation = (label = "org") => `contract-${label}-${randomUUID()}`;
    const write = (orgId: string, documents: DocumentVersion[], deleteDocIds: string[] = []) =>
      subject.stores.write(orgId, documents, { embeddingModel: contractEmbeddingModel, deleteDocIds });

    beforeAll(async () => {
      subject = await create();
    }, timeout * 3);
    afterAll(async () => {
      await subject?.close();
    }, timeout);

    it(
      "answers a health check on every part while the backends are up, before any organisation exists",
      async () => {
        const parts = [subject.stores.vector, subject.stores.keyword].filter((part) => part !== undefined);
        for (const part of parts) await expect(part.ping()).resolves.toBeUndefined();
      },
      timeout,
    );

    it(
      "finds written chunks by BM25 and by vector, with sorted, finite, normalisable scores",
      async () => {
        const orgId = organisation();
        await write(orgId, [
          await contractDocument("cats", ["Cats purr and sleep in the sun all day long."]),
          await contractDocument("dogs", ["Dogs bark loudly at the postman every morning."]),
          await contractDocument("birds", ["Birds sing at dawn; some dogs chase the birds."]),
        ]);
        const { keyword, vector } = await searchBoth(subject.stores, orgId, "barking dogs", 10, { principal: reader });
        expect(keyword[0]?.chunk.docId).toBe("dogs");
        expect(docIdsOf(keyword)).toEqual(["birds", "dogs"]);
        for (const results of [keyword, vector ?? []]) {
          const scores = results.map((result) => result.score);
          expect(scores.every(Number.isFinite)).toBe(true);
          expect([...scores].sort((left, right) => right - left)).toEqual(scores);
          for (const normalized of normalizeScores(scores, "min-max")) expect(normalized).toBeGreaterThanOrEqual(0);
        }
        expect(keyword.every((result) => result.score >= 0)).toBe(true);
        if (vector) {
          expect(vector[0]?.chunk.docId).toBe("dogs");
          expect(vector.every((result) => result.score >= -1.0001 && result.score <= 1.0001)).toBe(true);
        }
        const stored = keyword[0]?.chunk as ChunkRecord;
        expect(stored).toMatchObject({
          id: chunkId("dogs", 0),
          docId: "dogs",
          chunkIndex: 0,
          text: "Dogs bark loudly at the postman every morning.",
          title: "Title of dogs",
          source: "contract",
          ownerId: "owner@example.org",
          acl: "|user:_all_|",
          contentHash: "dogs:v1",
        });
        expect(stored.metadata).toMatchObject({ doc_id: "dogs", chunk_index: 0, type: "txt" });
        expect(await subject.stores.registry.contentHashes(orgId, ["cats", "dogs", "missing"])).toEqual(
          new Map([
            ["cats", "cats:v1"],
            ["dogs", "dogs:v1"],
          ]),
        );
      },
      timeout,
    );

    it(
      "replaces every chunk of a document, and deletes documents",
      async () => {
        const orgId = organisation();
        await write(orgId, [
          await contractDocument("doc", ["alpha one", "alpha two", "alpha three"]),
          await contractDocument("other", ["alpha other"]),
        ]);
        await write(orgId, [await contractDocument("doc", ["beta only"], { version: "v2" })]);
        const alpha = await searchBoth(subject.stores, orgId, "alpha", 10, { principal: reader });
        expect(docIdsOf(alpha.keyword)).toEqual(["other"]);
        expect(docIdsOf(alpha.vector?.filter((result) => result.chunk.text.includes("alpha")))).toEqual(
          subject.stores.vector ? ["other"] : [],
        );
        const beta = await searchBoth(subject.stores, orgId, "beta", 10, { principal: reader });
        expect(beta.keyword.map((result) => [result.chunk.text, result.chunk.contentHash])).toEqual([["beta only", "doc:v2"]]);
        expect((await subject.stores.registry.contentHashes(orgId, ["doc"])).get("doc")).toBe("doc:v2");
        await write(orgId, [], ["doc", "never-existed"]);
        expect((await searchBoth(subject.stores, orgId, "beta", 10, { principal: reader })).keyword).toEqual([]);
        expect(await subject.stores.registry.contentHashes(orgId, ["doc", "other"])).toEqual(new Map([["other", "other:v1"]]));
      },
      timeout,
    );

    it(
      "isolates organisations, including ids that differ only in case or punctuation",
      async () => {
        const base = randomUUID();
        const [first, second, third] = [`Contract-${base}`, `contract-${base}`, `contract_${base}`];
        await write(first, [await contractDocument("secret", ["the launch code is pineapple"], { acl: "|user:_all_|" })]);
        for (const orgId of [second, third]) {
          const { keyword, vector } = await searchBoth(subject.stores, orgId, "launch code pineapple", 10, { principal: reader });
          expect(keyword).toEqual([]);
          expect(vector ?? []).toEqual([]);
          expect(await subject.stores.registry.contentHashes(orgId, ["secret"])).toEqual(new Map());
          expect(await subject.stores.keyword.count(orgId)).toBe(0);
        }
        expect((await searchBoth(subject.stores, first, "pineapple", 10, { principal: reader })).keyword).toHaveLength(1);
      },
      timeout,
    );

    it(
      "answers an empty or unknown organisation with nothing",
      async () => {
        const orgId = organisation("empty");
        const { keyword, vector } = await searchBoth(subject.stores, orgId, "anything at all", 10, { principal: reader });
        expect(keyword).toEqual([]);
        expect(vector ?? []).toEqual([]);
        expect(await subject.stores.keyword.count(orgId)).toBe(0);
        expect(await subject.stores.registry.derivedDocuments(orgId, ["x"])).toEqual([]);
        await write(orgId, [], ["not-there"]);
      },
      timeout,
    );

    it(
      "pre-filters by principal: among 1,000 unreadable documents matching the query, top-k holds the 5 readable ones and no unreadable one",
      async () => {
        const orgId = organisation("acl");
        const documents: DocumentVersion[] = [];
        for (let index = 0; index < 1000; index++) {
          documents.push(
            await contractDocument(`private-${index}`, [`quarterly budget report number ${index} with budget figures`], {
              acl: "|user:someone-else@example.org|",
              owner: "boss@example.org",
            }),
          );
        }
        const readable = [
          await contractDocument("by-owner", ["budget report owned by the reader"], { owner: "reader@example.org", acl: "" }),
          await contractDocument("by-user", ["budget report shared with the reader"], { acl: "|user:Reader@Example.org|" }),
          await contractDocument("by-role", ["budget report for staff"], { acl: "|role:staff|" }),
          await contractDocument("by-group", ["budget report for readers"], { acl: "|group:readers|" }),
          await contractDocument("by-everyone", ["budget report for everyone"], { acl: "|user:_all_|deny:stranger@example.org|" }),
        ];
        const blocked = [
          await contractDocument("denied", ["budget report denied to the reader"], { acl: "|user:_all_|deny:reader@example.org|" }),
          await contractDocument("owner-denied", ["budget report owned but denied"], {
            owner: "reader@example.org",
            acl: "|deny:reader@example.org|",
          }),
        ];
        await write(orgId, [...documents, ...readable, ...blocked]);
        const { keyword, vector } = await searchBoth(subject.stores, orgId, "budget report", 10, { principal: reader });
        const expected = ["by-everyone", "by-group", "by-owner", "by-role", "by-user"];
        expect(docIdsOf(keyword)).toEqual(expected);
        if (vector) expect(docIdsOf(vector)).toEqual(expected);
        const strangers = await searchBoth(subject.stores, orgId, "budget report", 10, { principal: stranger });
        expect(docIdsOf(strangers.keyword)).toEqual(["denied"]);
      },
      timeout * 2,
    );

    it(
      "cannot be tricked by quotes, brackets or operators in user, role or group names",
      async () => {
        const orgId = organisation("injection");
        const hostile = [
          'a"b@example.org',
          "o'hara@example.org",
          "back\\slash@example.org",
          "x]y@example.org",
          "p||q",
          'x" or 1==1 or "',
          "' or '1'='1",
        ];
        await write(orgId, [
          await contractDocument("secret", ["classified operations manual"], { acl: "|user:boss@example.org|", owner: "boss@example.org" }),
          ...(await Promise.all(
            hostile.map((name, index) =>
              contractDocument(`hostile-${index}`, [`classified note for a tricky name ${index}`], {
                acl: `|role:${name}|`,
                owner: "boss@example.org",
              }),
            ),
          )),
        ]);
        const documents = [
          { docId: "secret", ownerId: "boss@example.org", acl: "|user:boss@example.org|" },
          ...hostile.map((name, index) => ({ docId: `hostile-${index}`, ownerId: "boss@example.org", acl: `|role:${name}|` })),
        ];
        for (const name of hostile) {
          for (const principal of [
            { userName: name, roles: [name], groups: [name] },
            { userName: `${name}@example.org`, roles: [`${name}]`, `${name}"`], groups: [`${name})`, `${name}'`] },
          ] as Principal[]) {
            const { keyword, vector } = await searchBoth(subject.stores, orgId, "classified", 50, { principal });
            // The oracle: the seven rules on the stored owner and ACL.
            const allowed = documents
              .filter((document) => canRead(normalizePrincipal(principal), document))
              .map((document) => document.docId);
            expect(docIdsOf(keyword), `principal ${JSON.stringify(principal)}`).toEqual(allowed.sort());
            if (vector) expect(docIdsOf(vector), `principal ${JSON.stringify(principal)}`).toEqual(allowed.sort());
          }
        }
        expect(
          docIdsOf(
            (
              await searchBoth(subject.stores, orgId, "classified", 50, {
                principal: { userName: "", roles: ['x" or 1==1 or "'], groups: [] },
              })
            ).keyword,
          ),
        ).toEqual(["hostile-5"]);
      },
      timeout * 2,
    );

    it(
      "applies document and metadata filters: equality, lists and ISO date ranges",
      async () => {
        const orgId = organisation("metadata");
        await write(orgId, [
          await contractDocument("a.pdf", ["invoice for march"], {
            metadata: { type: "pdf", created_at: "2024-03-10T00:00:00Z", pages: 3 },
          }),
          await contractDocument("b.docx", ["invoice for april"], {
            metadata: { type: "docx", created_at: "2024-04-10T00:00:00Z", pages: 7 },
          }),
          await contractDocument("c.pdf", ["invoice for may"], {
            metadata: { type: "pdf", created_at: "2024-05-10T00:00:00Z", pages: 12 },
          }),
        ]);
        const run = async (filter: Omit<ChunkFilter, "principal">) => {
          const { keyword, vector } = await searchBoth(subject.stores, orgId, "invoice", 10, { ...filter, principal: reader });
          if (vector) expect(docIdsOf(vector)).toEqual(docIdsOf(keyword));
          return docIdsOf(keyword);
        };
        expect(await run({ metadata: [{ key: "type", op: "eq", value: "pdf" }] })).toEqual(["a.pdf", "c.pdf"]);
        expect(await run({ metadata: [{ key: "type", op: "in", values: ["docx", "md"] }] })).toEqual(["b.docx"]);
        expect(
          await run({
            metadata: [
              { key: "created_at", op: "gte", value: "2024-04-01" },
              { key: "created_at", op: "lte", value: "2024-04-30T23:59:59Z" },
            ],
          }),
        ).toEqual(["b.docx"]);
        expect(await run({ metadata: [{ key: "pages", op: "gte", value: 5 }] })).toEqual(["b.docx", "c.pdf"]);
        expect(await run({ metadata: [{ key: "pages", op: "eq", value: "7" }] })).toEqual([]);
        expect(await run({ docIds: ["a.pdf", "b.docx"] })).toEqual(["a.pdf", "b.docx"]);
        expect(await run({ metadata: [{ key: "missing", op: "eq", value: "x" }] })).toEqual([]);
      },
      timeout,
    );

    it(
      "counts the matches of a query under the principal pre-filter and the metadata filters, with the included results",
      async () => {
        const orgId = organisation("count");
        const count = subject.stores.keyword.countByText;
        if (!count) throw new Error(`${subject.stores.keyword.name} does not count matches (KeywordIndex.countByText)`);
        await write(orgId, [
          ...(await Promise.all(
            [0, 1, 2, 3, 4].map((index) =>
              contractDocument(`public-${index}`, [`holiday allowance rule ${index}`, `unrelated text ${index}`], {
                metadata: { type: index < 2 ? "pdf" : "md" },
              }),
            ),
          )),
          await contractDocument("private", ["holiday allowance of the board"], { acl: "", owner: "boss@example.org" }),
          await contractDocument("denied", ["holiday allowance withheld"], { acl: "|user:_all_|deny:reader@example.org|" }),
          await contractDocument("other", ["nothing in common"]),
        ]);
        const counted = (filter: Omit<ChunkFilter, "principal">, include?: string[], principal = reader) =>
          count.call(subject.stores.keyword, orgId, "holiday allowance", { filter: { ...filter, principal }, include });
        expect(await counted({})).toBe(5);
        expect(await counted({}, undefined, { userName: "boss@example.org", roles: [], groups: [] })).toBe(7);
        expect(await counted({ metadata: [{ key: "type", op: "eq", value: "pdf" }] })).toBe(2);
        // A result of another retriever without the query's words counts too, once; one the filter refuses does not.
        expect(await counted({}, [chunkId("other", 0), chunkId("public-0", 0), chunkId("private", 0)])).toBe(6);
        expect(await counted({ metadata: [{ key: "type", op: "eq", value: "pdf" }] }, [chunkId("other", 0)])).toBe(2);
        expect(await count.call(subject.stores.keyword, organisation("empty"), "holiday", { filter: { principal: reader } })).toBe(0);
      },
      timeout,
    );

    it(
      "keeps unicode text intact and finds it",
      async () => {
        const orgId = organisation("unicode");
        const text = "Ünïcödé naïve café — 東京都の天気 😀 «quoted» \"double\" 'single' \\ back";
        await write(orgId, [await contractDocument("unicode", [text], { title: "Tïtle ✓" })]);
        const { keyword } = await searchBoth(subject.stores, orgId, "café", 5, { principal: reader });
        expect(keyword[0]?.chunk.text).toBe(text);
        expect(keyword[0]?.chunk.title).toBe("Tïtle ✓");
        expect(
          (await searchBoth(subject.stores, orgId, "東京", 5, { principal: reader })).keyword.map((result) => result.chunk.docId),
        ).toEqual(["unicode"]);
      },
      timeout,
    );

    it(
      "records derived documents",
      async () => {
        const orgId = organisation("derived");
        await write(orgId, [
          await contractDocument("source-1", ["first source"]),
          await contractDocument("source-2", ["second source"]),
          await contractDocument("raptor:summary", ["summary of both sources"], { derivedFrom: ["source-1", "source-2"] }),
        ]);
        expect(await subject.stores.registry.derivedDocuments(orgId, ["source-2"])).toEqual(["raptor:summary"]);
        await write(orgId, [], ["raptor:summary"]);
        expect(await subject.stores.registry.derivedDocuments(orgId, ["source-2"])).toEqual([]);
      },
      timeout,
    );

    it.skipIf(options.vector === false)(
      "refuses vectors of a different embedding model",
      async () => {
        if (!subject.stores.vector) throw new Error("the stores have no vector index; pass { vector: false }");
        const orgId = organisation("model");
        await write(orgId, [await contractDocument("first", ["first alpha"])]);
        const other = await contractDocument("second", ["second omega"]);
        for (const chunk of other.chunks) chunk.embedding = new Float32Array(32).fill(0.1);
        const error = await subject.stores
          .write(orgId, [other], { embeddingModel: { id: "other-model", dimension: 32 } })
          .catch((caught: unknown) => caught);
        expect(DocqaError.isInstance(error) && error.code).toBe("embedding_model_mismatch");
        const search = subject.stores.vector.searchByVector(
          orgId,
          new Float32Array(32),
          { id: "other-model", dimension: 32 },
          {
            topK: 1,
            filter: { principal: reader },
          },
        );
        await expect(search).rejects.toMatchObject({ code: "embedding_model_mismatch" });
        expect(docIdsOf((await searchBoth(subject.stores, orgId, "second omega", 5, { principal: reader })).keyword)).toEqual([]);
      },
      timeout,
    );

    it(
      "describes committed documents: title, source, type, owner, ACL, text hash, chunk count, sources and commit time",
      async () => {
        const orgId = organisation("records");
        const before = Date.now();
        await write(orgId, [
          await contractDocument("report.pdf", ["first page", "second page"], {
            owner: "Ann@Example.org",
            acl: "|group:finance|",
            metadata: { type: "pdf" },
            info: {
              title: "Annual report",
              source: "upload",
              type: "pdf",
              ownerId: "ann@example.org",
              acl: "|group:finance|",
              textHash: "text-1",
            },
          }),
          await contractDocument("raptor:summary", ["a summary"], { derivedFrom: ["report.pdf", "other"], metadata: { type: "summary" } }),
        ]);
        const records = await subject.stores.registry.describeDocuments(orgId, ["report.pdf", "raptor:summary", "missing"]);
        expect([...records.keys()].sort()).toEqual(["raptor:summary", "report.pdf"]);
        const report = records.get("report.pdf") as DocumentRecord;
        expect({ ...report, updatedAt: "" }).toEqual({
          docId: "report.pdf",
          contentHash: "report.pdf:v1",
          derivedFrom: [],
          title: "Annual report",
          source: "upload",
          type: "pdf",
          ownerId: "ann@example.org",
          acl: "|group:finance|",
          textHash: "text-1",
          chunkCount: 2,
          updatedAt: "",
        });
        expect(Date.parse(report.updatedAt)).toBeGreaterThanOrEqual(before - 5_000);
        expect(Date.parse(report.updatedAt)).toBeLessThanOrEqual(Date.now() + 5_000);
        expect(records.get("raptor:summary")).toMatchObject({
          derivedFrom: ["other", "report.pdf"],
          title: "Title of raptor:summary",
          source: "contract",
          type: "summary",
          ownerId: "owner@example.org",
          acl: "|user:_all_|",
          textHash: "",
          chunkCount: 1,
        });
        await write(orgId, [await contractDocument("report.pdf", ["only page"], { version: "v2", acl: "", owner: "bob@example.org" })]);
        expect((await subject.stores.registry.describeDocuments(orgId, ["report.pdf"])).get("report.pdf")).toMatchObject({
          contentHash: "report.pdf:v2",
          ownerId: "bob@example.org",
          acl: "",
          chunkCount: 1,
          title: "Title of report.pdf",
        });
        expect(await subject.stores.registry.describeDocuments(organisation("other"), ["report.pdf"])).toEqual(new Map());
      },
      timeout,
    );

    it(
      "lists the documents a principal may read, in id order, paged, filtered by source, type and owner, never summaries",
      async () => {
        const orgId = organisation("listing");
        const hostile = 'x" or 1==1 or "';
        await write(orgId, [
          await contractDocument("a-public", ["public text"], { metadata: { type: "pdf" } }),
          await contractDocument("b-owned", ["owned text"], { owner: "reader@example.org", acl: "" }),
          await contractDocument("c-role", ["role text"], { acl: "|role:staff|", metadata: { type: "md" } }),
          await contractDocument("d-denied", ["denied text"], { acl: "|user:_all_|deny:reader@example.org|" }),
          await contractDocument("e-private", ["private text"], { acl: "|user:boss@example.org|", owner: "boss@example.org" }),
          await contractDocument("f-group", ["group text"], { acl: "|group:readers|", metadata: { type: "pdf" } }),
          await contractDocument("g-hostile", ["hostile text"], { acl: `|role:${hostile}|`, owner: "boss@example.org" }),
          await contractDocument("Ünïcödé", ["unicode text"]),
          await contractDocument("raptor:summary", ["summary text"], { derivedFrom: ["a-public"] }),
        ]);
        const list = async (query: Partial<DocumentQuery>) => {
          const page = await subject.stores.registry.listDocuments(orgId, { limit: 100, ...query });
          return { ids: page.documents.map((document) => document.docId), next: page.next };
        };
        const readable = ["a-public", "b-owned", "c-role", "f-group", "Ünïcödé"];
        expect(await list({ principal: reader })).toEqual({ ids: readable, next: null });
        expect((await list({})).ids).toEqual(["a-public", "b-owned", "c-role", "d-denied", "e-private", "f-group", "g-hostile", "Ünïcödé"]);
        const pages: string[][] = [];
        let after: string | undefined;
        for (;;) {
          const page = await list({ principal: reader, limit: 2, after });
          pages.push(page.ids);
          if (page.next === null) break;
          expect(page.next).toBe(page.ids.at(-1));
          after = page.next;
        }
        expect(pages).toEqual([["a-public", "b-owned"], ["c-role", "f-group"], ["Ünïcödé"]]);
        expect((await list({ principal: reader, type: "pdf" })).ids).toEqual(["a-public", "f-group"]);
        expect((await list({ principal: reader, ownerId: "Reader@Example.org" })).ids).toEqual(["b-owned"]);
        expect((await list({ source: "contract", ownerId: "boss@example.org" })).ids).toEqual(["e-private", "g-hostile"]);
        expect((await list({ source: "elsewhere" })).ids).toEqual([]);
        expect((await list({ principal: { userName: hostile, roles: [hostile], groups: [hostile] } })).ids).toEqual([
          "a-public",
          "d-denied",
          "g-hostile",
          "Ünïcödé",
        ]);
        expect((await list({ principal: stranger })).ids).toEqual(["a-public", "d-denied", "Ünïcödé"]);
        const first = (await subject.stores.registry.listDocuments(orgId, { principal: reader, limit: 1 })).documents[0];
        expect(first).toMatchObject({ docId: "a-public", title: "Title of a-public", type: "pdf", chunkCount: 1, acl: "|user:_all_|" });
        expect(await subject.stores.registry.listDocuments(organisation("empty"), { limit: 10 })).toEqual({ documents: [], next: null });
      },
      timeout,
    );

    it(
      "reads a version's stored chunks back in order, with embeddings when the stores hold vectors",
      async () => {
        const orgId = organisation("chunks");
        const texts = ["zero chunk", "one chunk", "two chunk"];
        const version = await contractDocument("doc", texts, { acl: "|role:hr|", metadata: { type: "txt", page: 2 } });
        await write(orgId, [version]);
        const chunks = await subject.stores.documentChunks(orgId, "doc", "doc:v1");
        expect(chunks.map((chunk) => [chunk.id, chunk.chunkIndex, chunk.text, chunk.acl, chunk.contentHash])).toEqual(
          texts.map((text, index) => [chunkId("doc", index), index, text, "|role:hr|", "doc:v1"]),
        );
        expect(chunks[1]?.metadata).toMatchObject({ doc_id: "doc", chunk_index: 1, type: "txt", page: 2 });
        if (subject.stores.vector) {
          chunks.forEach((chunk, index) => {
            const expected = version.chunks[index]?.embedding as Float32Array;
            expect(chunk.embedding?.length).toBe(expected.length);
            for (let dimension = 0; dimension < expected.length; dimension++)
              expect(chunk.embedding?.[dimension]).toBeCloseTo(expected[dimension] as number, 5);
          });
        }
        expect(await subject.stores.documentChunks(orgId, "doc", "doc:v0")).toEqual([]);
        expect(await subject.stores.documentChunks(orgId, "missing", "missing:v1")).toEqual([]);
        expect(await subject.stores.documentChunks(organisation("none"), "doc", "doc:v1")).toEqual([]);
      },
      timeout,
    );

    it(
      "deletes every chunk, vector, full-text entry, registry record and summary of a document",
      async () => {
        const orgId = organisation("deletion");
        await write(orgId, [
          await contractDocument("gone", ["zebra crossing rules", "zebra stripes"]),
          await contractDocument("kept", ["giraffe necks"]),
          await contractDocument("raptor:summary", ["summary about zebra and giraffe"], { derivedFrom: ["gone", "kept"] }),
        ]);
        const derived = await subject.stores.registry.derivedDocuments(orgId, ["gone"]);
        expect(derived).toEqual(["raptor:summary"]);
        await write(orgId, [], ["gone", ...derived]);
        const zebra = await searchBoth(subject.stores, orgId, "zebra", 10, {});
        expect(zebra.keyword).toEqual([]);
        expect((zebra.vector ?? []).map((result) => result.chunk.docId)).toEqual(subject.stores.vector ? ["kept"] : []);
        expect([...(await subject.stores.registry.describeDocuments(orgId, ["gone", "raptor:summary", "kept"])).keys()]).toEqual(["kept"]);
        expect((await subject.stores.registry.listDocuments(orgId, { limit: 10 })).documents.map((document) => document.docId)).toEqual([
          "kept",
        ]);
        expect(await subject.stores.documentChunks(orgId, "gone", "gone:v1")).toEqual([]);
        expect(await subject.stores.registry.derivedDocuments(orgId, ["kept"])).toEqual([]);
        expect(await subject.stores.keyword.count(orgId)).toBe(1);
        if (subject.stores.vector) expect(await subject.stores.vector.count(orgId)).toBe(1);
      },
      timeout,
    );

    it(
      "leaves nothing visible when a store fails half-way through a write, and keeps the old version",
      async () => {
        const parts = subject.stagedParts;
        if (!parts) return; // transactional stores are covered by their crash tests
        const orgId = organisation("failure");
        await write(orgId, [await contractDocument("doc", ["original text about apples", "more about apples"])]);
        const keyword = parts.keyword;
        const failingKeyword = new Proxy(keyword, {
          get(target, property) {
            if (property === "write")
              return async () => {
                throw new DocqaError("store_unavailable", "injected failure", { component: "contract" });
              };
            const value = Reflect.get(target, property, target) as unknown;
            return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
          },
        });
        const failing = stagedDocumentStores({ ...parts, keyword: failingKeyword });
        const attempt = failing.write(orgId, [await contractDocument("doc", ["replacement text about pears"], { version: "v2" })], {
          embeddingModel: contractEmbeddingModel,
        });
        await expect(attempt).rejects.toMatchObject({ code: "store_unavailable" });
        const apples = await searchBoth(subject.stores, orgId, "apples", 10, { principal: reader });
        expect(apples.keyword.map((result) => result.chunk.contentHash)).toEqual(["doc:v1", "doc:v1"]);
        const pears = await searchBoth(subject.stores, orgId, "replacement pears", 10, { principal: reader });
        expect(pears.keyword).toEqual([]);
        expect((pears.vector ?? []).every((result) => result.chunk.contentHash === "doc:v1")).toBe(true);
        expect((await subject.stores.registry.contentHashes(orgId, ["doc"])).get("doc")).toBe("doc:v1");
      },
      timeout,
    );

    it(
      "sweeps a version an interrupted write left uncommitted after the grace period, and nothing else",
      async () => {
        const parts = subject.stagedParts;
        if (!parts) return; // a transactional store leaves nothing uncommitted
        const indexes = [...new Set([parts.vector, parts.keyword])].filter((index) => index !== undefined);
        expect(indexes.every(isSweepable)).toBe(true);
        const orgId = organisation("sweep");
        const stamped = { metadata: { org_id: orgId } };
        await write(orgId, [
          await contractDocument("kept", ["committed text about harbours", "more about harbours"], stamped),
          await contractDocument("other", ["another committed text about lighthouses"], stamped),
        ]);
        // A crash between the staged protocol's write and commit: v2 is stored, never committed.
        const interrupted = await contractDocument("kept", ["interrupted text about pears", "more pears", "even more pears"], {
          ...stamped,
          version: "v2",
        });
        for (const index of indexes) await index.write(orgId, [interrupted], { embeddingModel: contractEmbeddingModel });
        expect(await parts.keyword.count(orgId)).toBe(6);

        let clock = 1_000_000;
        const reports: SweepReport[] = [];
        const sweeper = createUncommittedSweeper({
          indexes: indexes.filter((index): index is typeof index & SweepableIndex => isSweepable(index)),
          registry: parts.registry,
          graceMs: 60_000,
          logger: silentLogger,
          now: () => clock,
          onSweep: (report) => reports.push(report),
        });
        const early = await sweeper.sweep();
        expect(early.errors).toEqual([]);
        expect(early.versionsRemoved).toBe(0);
        expect(early.pending).toBe(indexes.length);
        expect(await parts.keyword.count(orgId)).toBe(6);

        clock += 60_000;
        const late = await sweeper.sweep();
        expect(late.errors).toEqual([]);
        expect(late.removed.filter((entry) => entry.orgId === orgId)).toEqual(
          indexes.map((index) => ({ index: index.name, orgId, versions: 1, chunks: 3 })),
        );
        expect(reports).toHaveLength(2);
        expect(await parts.keyword.count(orgId)).toBe(3);
        if (parts.vector) expect(await parts.vector.count(orgId)).toBe(3);
        const harbours = await searchBoth(subject.stores, orgId, "harbours", 10, { principal: reader });
        expect(harbours.keyword.map((result) => result.chunk.contentHash)).toEqual(["kept:v1", "kept:v1"]);
        expect(await (indexes[0] as unknown as SweepableIndex).storedVersions(orgId)).toEqual(
          expect.arrayContaining([
            { docId: "kept", contentHash: "kept:v1", chunks: 2 },
            { docId: "other", contentHash: "other:v1", chunks: 1 },
          ]),
        );
      },
      timeout,
    );

    it.skipIf(options.largeBatch === false)(
      "writes a batch of 10,000 chunks in one call",
      async () => {
        const orgId = organisation("batch");
        const documents: DocumentVersion[] = [];
        for (let document = 0; document < 100; document++) {
          const texts = Array.from(
            { length: 100 },
            (_, index) => `batch document ${document} chunk ${index} term${(document * 100 + index) % 997}`,
          );
          documents.push(await contractDocument(`batch-${document}`, texts));
        }
        await write(orgId, documents);
        expect(await subject.stores.keyword.count(orgId)).toBe(10_000);
        if (subject.stores.vector) expect(await subject.stores.vector.count(orgId)).toBe(10_000);
        const { keyword } = await searchBoth(subject.stores, orgId, "term123", 20, { principal: reader });
        expect(keyword.length).toBeGreaterThan(0);
        expect(keyword.every((result) => result.chunk.text.endsWith("term123"))).toBe(true);
      },
      timeout * 5,
    );
  });
}
