import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createEmbeddedStore, type EmbeddedStore } from "../embedded-store/embedded-store.js";
import { silentLogger } from "../logging/logger.js";
import type { ChunkRecord, DocumentVersion } from "../stores/chunk-record.js";
import { type DocumentStores, transactionalDocumentStores } from "../stores/document-stores.js";
import type { SearchOptions } from "../stores/vector-index.js";
import { DeterministicEmbeddings } from "../testing/deterministic-embeddings.js";
import { type RetrievalSettings, retrieveChunks } from "./retrieve-chunks.js";

const embeddings = new DeterministicEmbeddings();
const model = { id: embeddings.model, dimension: embeddings.dimension };
const stores: EmbeddedStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

/** Twenty one-chunk documents about badges; the even ones readable by group staff only. */
async function badgeStore(): Promise<EmbeddedStore> {
  const store = createEmbeddedStore({ dataDir: mkdtempSync(join(tmpdir(), "docqa-retrieve-")) });
  stores.push(store);
  const texts = Array.from({ length: 20 }, (_, index) => `Badge rule ${index}: badges open door ${index} of the office.`);
  const vectors = await embeddings.embedDocuments(texts);
  const documents: DocumentVersion[] = texts.map((text, index) => {
    const chunk: ChunkRecord = {
      id: `d${index}::0`,
      docId: `d${index}`,
      chunkIndex: 0,
      text,
      title: "",
      source: "test",
      ownerId: "owner@example.org",
      acl: index % 2 === 0 ? "|group:staff|" : "|user:_all_|",
      metadata: {},
      contentHash: `d${index}`,
      embedding: Float32Array.from(vectors[index] as number[]),
    };
    return { docId: chunk.docId, contentHash: chunk.contentHash, chunks: [chunk] };
  });
  await store.upsert("org", documents, { embeddingModel: model });
  return store;
}

const settings: RetrievalSettings = {
  vectorTopK: 2,
  bm25TopK: 2,
  retrieverTopK: 10,
  weightVector: 0.5,
  weightBm25: 0.5,
  normalization: "min-max",
};

/** The store's searches without the principal pre-filter, as an engine that cannot express an ACL natively. */
function withoutPrefilter(store: EmbeddedStore): DocumentStores {
  const base = transactionalDocumentStores(store);
  const unfiltered = (options: SearchOptions): SearchOptions => ({ ...options, filter: {} });
  return {
    ...base,
    vector: { ...store, searchByVector: (orgId, vector, info, options) => store.searchByVector(orgId, vector, info, unfiltered(options)) },
    keyword: { ...store, searchByText: (orgId, query, options) => store.searchByText(orgId, query, unfiltered(options)) },
  };
}

async function retrieve(stores: DocumentStores, groups: string[]) {
  return retrieveChunks(
    { stores, embeddings: { status: "ready", embeddings, model }, logger: silentLogger },
    { orgId: "org", principal: { userName: "reader@example.org", roles: [], groups }, query: "which door do badges open", settings },
  );
}

describe("retrieveChunks candidate depth", () => {
  it("keeps the requested depths when access control removed nothing", async () => {
    const output = await retrieve(transactionalDocumentStores(await badgeStore()), ["staff"]);
    expect(output.candidates).toBeLessThanOrEqual(4);
    expect(output.chunks.length).toBe(output.candidates);
  });

  it("searches deeper when access control removed candidates and too few remain", async () => {
    const output = await retrieve(withoutPrefilter(await badgeStore()), []);
    expect(output.candidates).toBeGreaterThan(4);
    expect(output.chunks.length).toBeGreaterThan(0);
    expect(output.chunks.every((chunk) => Number(chunk.chunk.docId.slice(1)) % 2 === 1)).toBe(true);
  });
});
