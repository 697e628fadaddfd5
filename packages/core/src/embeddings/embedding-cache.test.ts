import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openEmbeddingCache } from "./embedding-cache.js";

const path = () => join(mkdtempSync(join(tmpdir(), "docqa-cache-")), "nested", "embedding-cache.sqlite");

describe("openEmbeddingCache", () => {
  it("returns stored vectors by text, bit for bit, across openings", () => {
    const file = path();
    const writer = openEmbeddingCache({ path: file, namespace: "model-a@q8", maxEntries: 10 });
    writer.store([
      { text: "alpha", vector: Float32Array.from([0.1, 0.2, 0.3]) },
      { text: "beta", vector: Float32Array.from([1, 2, 3]) },
    ]);
    writer.close();
    const reader = openEmbeddingCache({ path: file, namespace: "model-a@q8", maxEntries: 10 });
    const found = reader.lookup(["beta", "gamma", "alpha", "beta"]);
    expect([...found.keys()].sort()).toEqual([0, 2, 3]);
    expect(Array.from(found.get(2) as Float32Array)).toEqual(Array.from(Float32Array.from([0.1, 0.2, 0.3])));
    expect(Array.from(found.get(3) as Float32Array)).toEqual([1, 2, 3]);
    expect(found.get(0)).not.toBe(found.get(3));
    reader.close();
  });

  it("keeps models apart by namespace", () => {
    const file = path();
    const first = openEmbeddingCache({ path: file, namespace: "model-a", maxEntries: 10 });
    first.store([{ text: "alpha", vector: Float32Array.from([1]) }]);
    first.close();
    const second = openEmbeddingCache({ path: file, namespace: "model-b", maxEntries: 10 });
    expect(second.lookup(["alpha"]).size).toBe(0);
    second.close();
  });

  it("drops the least recently used vectors beyond maxEntries", async () => {
    const cache = openEmbeddingCache({ path: path(), namespace: "m", maxEntries: 2 });
    cache.store([{ text: "old", vector: Float32Array.from([1]) }]);
    await new Promise((done) => setTimeout(done, 5));
    cache.store([{ text: "used", vector: Float32Array.from([2]) }]);
    await new Promise((done) => setTimeout(done, 5));
    cache.lookup(["old"]); // "old" is now more recent than "used"
    await new Promise((done) => setTimeout(done, 5));
    cache.store([{ text: "new", vector: Float32Array.from([3]) }]);
    const found = cache.lookup(["old", "used", "new"]);
    expect([...found.keys()].sort()).toEqual([0, 2]);
    cache.close();
  });
});
