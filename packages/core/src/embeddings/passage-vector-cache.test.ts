import { Embeddings } from "@langchain/core/embeddings";
import { describe, expect, it } from "vitest";
import { DeterministicEmbeddings } from "../testing/deterministic-embeddings.js";
import { PassageVectorCache, passageCacheEntryOverhead } from "./passage-vector-cache.js";

/** Deterministic embeddings that record the texts of every `embedDocuments` call. */
const recording = () => new DeterministicEmbeddings({ dimension: 8, record: true });

const scope = { model: "docqa-deterministic-hash-8", organisation: "acme" };
const large = { maxEntries: 1000, maxBytes: 2 ** 20 };

describe("PassageVectorCache", () => {
  it("returns the model's vectors and sends only the texts not cached, each once, in one call", async () => {
    const embeddings = recording();
    const cache = new PassageVectorCache(large);
    const first = await cache.embedDocuments(embeddings, ["alpha beta", "gamma delta"], scope);
    expect(first).toEqual(await new DeterministicEmbeddings({ dimension: 8 }).embedDocuments(["alpha beta", "gamma delta"]));
    const second = await cache.embedDocuments(embeddings, ["gamma delta", "epsilon", "alpha beta", "epsilon"], scope);
    expect(embeddings.documentBatches).toEqual([["alpha beta", "gamma delta"], ["epsilon"]]);
    expect(second[0]).toEqual(first[1]);
    expect(second[2]).toEqual(first[0]);
    expect(second[3]).toEqual(second[1]);
    expect(cache.stats()).toMatchObject({ hits: 2, shared: 0, misses: 3, entries: 3 });
  });

  it("does not call the model when every text is cached", async () => {
    const embeddings = recording();
    const cache = new PassageVectorCache(large);
    await cache.embedDocuments(embeddings, ["alpha"], scope);
    await cache.embedDocuments(embeddings, ["alpha"], scope);
    expect(embeddings.calls).toBe(1);
  });

  it("never shares vectors across models or organisations", async () => {
    const embeddings = recording();
    const cache = new PassageVectorCache(large);
    await cache.embedDocuments(embeddings, ["alpha"], scope);
    await cache.embedDocuments(embeddings, ["alpha"], { ...scope, model: "another-model" });
    await cache.embedDocuments(embeddings, ["alpha"], { ...scope, organisation: "globex" });
    // Whatever the organisation id holds, (organisation, text) pairs do not collide.
    await cache.embedDocuments(embeddings, ["b\u0000alpha"], { ...scope, organisation: "a" });
    await cache.embedDocuments(embeddings, ["alpha"], { ...scope, organisation: "a\u0000b" });
    expect(embeddings.documentBatches).toEqual([["alpha"], ["alpha"], ["alpha"], ["b\u0000alpha"], ["alpha"]]);
  });

  it("keeps float64 components exactly and returns copies", async () => {
    class Float64Embeddings extends Embeddings {
      async embedDocuments(texts: string[]): Promise<number[][]> {
        return texts.map(() => [0.1, 0.2, 1 / 3]);
      }
      async embedQuery(): Promise<number[]> {
        return [0.1, 0.2, 1 / 3];
      }
    }
    const cache = new PassageVectorCache(large);
    const [first] = await cache.embedDocuments(new Float64Embeddings({}), ["alpha"], scope);
    (first as number[])[0] = 99;
    const [second] = await cache.embedDocuments(new Float64Embeddings({}), ["alpha"], scope);
    expect(second).toEqual([0.1, 0.2, 1 / 3]);
  });

  it("drops the least recently used vectors beyond the entry bound and the byte bound", async () => {
    const embeddings = recording();
    const byEntries = new PassageVectorCache({ maxEntries: 2, maxBytes: 2 ** 20 });
    await byEntries.embedDocuments(embeddings, ["alpha", "beta"], scope);
    await byEntries.embedDocuments(embeddings, ["alpha"], scope);
    await byEntries.embedDocuments(embeddings, ["gamma"], scope);
    await byEntries.embedDocuments(embeddings, ["alpha", "beta"], scope);
    expect(embeddings.documentBatches.slice(1)).toEqual([["gamma"], ["beta"]]);
    // One entry of "alpha": 8 float32 components, its key in UTF-16 and the overhead.
    const entryBytes = 8 * 4 + `0:${scope.organisation.length}:${scope.organisation}alpha`.length * 2 + passageCacheEntryOverhead;
    const byBytes = new PassageVectorCache({ maxEntries: 1000, maxBytes: entryBytes * 2 + 1 });
    await byBytes.embedDocuments(embeddings, ["alpha", "bravo", "delta"], scope);
    expect(byBytes.stats()).toMatchObject({ entries: 2, bytes: entryBytes * 2 });
  });

  it("with no room, embeds every text", async () => {
    const embeddings = recording();
    const cache = new PassageVectorCache({ maxEntries: 0, maxBytes: 2 ** 20 });
    await cache.embedDocuments(embeddings, ["alpha"], scope);
    await cache.embedDocuments(embeddings, ["alpha"], scope);
    expect(embeddings.documentBatches).toEqual([["alpha"], ["alpha"]]);
    expect(cache.stats()).toMatchObject({ hits: 0, misses: 2, entries: 0 });
  });

  it("shares a text another call is embedding, and caches nothing when the model fails", async () => {
    const embeddings = recording();
    const cache = new PassageVectorCache(large);
    const [left, right] = await Promise.all([
      cache.embedDocuments(embeddings, ["alpha", "beta"], scope),
      cache.embedDocuments(embeddings, ["beta", "gamma"], scope),
    ]);
    expect(embeddings.documentBatches).toEqual([["alpha", "beta"], ["gamma"]]);
    expect(right[0]).toEqual(left[1]);
    expect(cache.stats()).toMatchObject({ shared: 1, misses: 3 });

    let failures = 0;
    class FailingEmbeddings extends DeterministicEmbeddings {
      override async embedDocuments(texts: string[]): Promise<number[][]> {
        if (failures++ === 0) throw new Error("model crashed");
        return super.embedDocuments(texts);
      }
    }
    const failing = new FailingEmbeddings({ dimension: 8 });
    const calls = [cache.embedDocuments(failing, ["delta"], scope), cache.embedDocuments(failing, ["delta"], scope)];
    await expect(calls[0]).rejects.toThrow("model crashed");
    await expect(calls[1]).rejects.toThrow("model crashed");
    expect(await cache.embedDocuments(failing, ["delta"], scope)).toEqual(await failing.embedDocuments(["delta"]));
    expect(failures).toBe(3);
  });
});
