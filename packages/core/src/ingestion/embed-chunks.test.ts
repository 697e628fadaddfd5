import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { chunkDocument } from "../chunking/chunk-document.js";
import { sourceFromInput } from "../chunking/source-document.js";
import type { DocumentVersion } from "../stores/chunk-record.js";
import { DeterministicEmbeddings } from "../testing/deterministic-embeddings.js";
import { type EmbeddingProgress, embedChunks } from "./embed-chunks.js";

const context = { orgId: "org", uploader: "ann@example.org" };

function documents(contents: Record<string, string>): Promise<DocumentVersion[]> {
  return Promise.all(
    Object.entries(contents).map(([docId, content]) =>
      chunkDocument(sourceFromInput(docId, { title: "Policy", content }), { chunkSize: 1000, chunkOverlap: 0 }, context),
    ),
  );
}

const cacheAt = (directory: string) => ({ path: join(directory, "embedding-cache.sqlite"), namespace: "hash-64", maxEntries: 100 });

describe("embedChunks", () => {
  it("embeds every chunk with the model's vector of its indexed text", async () => {
    const embeddings = new DeterministicEmbeddings();
    const [version] = await documents({ a: "Badges open every door." });
    const progress = await embedChunks([version as DocumentVersion], embeddings);
    const expected = await embeddings.embedDocuments(["Policy\nBadges open every door."]);
    expect(Array.from(version?.chunks[0]?.embedding as Float32Array)).toEqual(Array.from(Float32Array.from(expected[0] as number[])));
    expect(progress).toMatchObject({ done: 1, total: 1, embedded: 1, cached: 0 });
  });

  it("embeds identical texts once and reuses cached vectors in a later call", async () => {
    const directory = mkdtempSync(join(tmpdir(), "docqa-embed-"));
    const embeddings = new DeterministicEmbeddings();
    const first = await embedChunks(await documents({ a: "Same text.", b: "Same text.", c: "Other text." }), embeddings, {
      cache: cacheAt(directory),
    });
    expect(first).toMatchObject({ total: 3, embedded: 3, cached: 0 });
    expect(embeddings.calls).toBe(1);
    const versions = await documents({ a2: "Same text.", d: "New text." });
    const events: EmbeddingProgress[] = [];
    const second = await embedChunks(versions, embeddings, { cache: cacheAt(directory), onProgress: (event) => events.push(event) });
    expect(second).toMatchObject({ done: 2, total: 2, embedded: 1, cached: 1 });
    expect(events.map(({ done, embedded, cached }) => ({ done, embedded, cached }))).toEqual([
      { done: 1, embedded: 0, cached: 1 },
      { done: 2, embedded: 1, cached: 1 },
    ]);
    const [reused] = await embeddings.embedDocuments(["Policy\nSame text."]);
    expect(Array.from(versions[0]?.chunks[0]?.embedding as Float32Array)).toEqual(Array.from(Float32Array.from(reused as number[])));
  });

  it("embeds without the cache, with one warning, when the cache file cannot be opened", async () => {
    const directory = mkdtempSync(join(tmpdir(), "docqa-embed-"));
    writeFileSync(join(directory, "not-a-directory"), "");
    const warnings: string[] = [];
    const logger = { debug: () => {}, info: () => {}, error: () => {}, warn: (message: string) => warnings.push(message) };
    const versions = await documents({ a: "Badges open every door." });
    const progress = await embedChunks(versions, new DeterministicEmbeddings(), {
      cache: { path: join(directory, "not-a-directory", "cache.sqlite"), namespace: "m", maxEntries: 10 },
      logger,
    });
    expect(progress).toMatchObject({ done: 1, embedded: 1, cached: 0 });
    expect(versions[0]?.chunks[0]?.embedding).toHaveLength(64);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^embedding cache unavailable; embedding without it: /);
  });
});
