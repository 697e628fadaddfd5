import { Embeddings } from "@langchain/core/embeddings";
import { describe, expect, it } from "vitest";
import { QueryCachedEmbeddings } from "./query-cached-embeddings.js";

class CountingEmbeddings extends Embeddings {
  queries: string[] = [];
  failNext = false;
  constructor() {
    super({});
  }
  override async embedDocuments(texts: string[]): Promise<number[][]> {
    return texts.map((text) => [text.length, 0]);
  }
  override async embedQuery(text: string): Promise<number[]> {
    this.queries.push(text);
    if (this.failNext) {
      this.failNext = false;
      throw new Error("model down");
    }
    return [text.length, 1];
  }
}

describe("QueryCachedEmbeddings", () => {
  it("embeds a repeated query once, and concurrent ones once", async () => {
    const inner = new CountingEmbeddings();
    const cached = new QueryCachedEmbeddings(inner, 10);
    const [first, second] = await Promise.all([cached.embedQuery("what is bm25"), cached.embedQuery("what is bm25")]);
    expect(await cached.embedQuery("what is bm25")).toEqual([12, 1]);
    expect(first).toEqual([12, 1]);
    expect(second).toEqual([12, 1]);
    expect(inner.queries).toEqual(["what is bm25"]);
  });

  it("evicts the least recently used query beyond its bound", async () => {
    const inner = new CountingEmbeddings();
    const cached = new QueryCachedEmbeddings(inner, 2);
    await cached.embedQuery("a");
    await cached.embedQuery("bb");
    await cached.embedQuery("a");
    await cached.embedQuery("ccc"); // evicts "bb"
    await cached.embedQuery("a");
    await cached.embedQuery("bb");
    expect(inner.queries).toEqual(["a", "bb", "ccc", "bb"]);
  });

  it("returns copies, does not cache failures, and passes documents through", async () => {
    const inner = new CountingEmbeddings();
    const cached = new QueryCachedEmbeddings(inner);
    const vector = await cached.embedQuery("q");
    vector[0] = 99;
    expect(await cached.embedQuery("q")).toEqual([1, 1]);
    inner.failNext = true;
    await expect(cached.embedQuery("down")).rejects.toThrow("model down");
    expect(await cached.embedQuery("down")).toEqual([4, 1]);
    expect(await cached.embedDocuments(["ab"])).toEqual([[2, 0]]);
    expect(inner.queries).toEqual(["q", "down", "down"]);
  });
});
