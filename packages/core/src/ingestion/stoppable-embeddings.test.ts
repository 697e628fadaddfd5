import { describe, expect, it } from "vitest";
import { DeterministicEmbeddings } from "../testing/deterministic-embeddings.js";
import { StoppableEmbeddings } from "./stoppable-embeddings.js";

class CountingEmbeddings extends DeterministicEmbeddings {
  readonly sizes: number[] = [];
  override async embedDocuments(texts: string[]): Promise<number[][]> {
    this.sizes.push(texts.length);
    return super.embedDocuments(texts);
  }
}

const texts = Array.from({ length: 70 }, (_, index) => `Badge ${index} opens door ${index % 9}.`);

describe("StoppableEmbeddings", () => {
  it("embeds a call in pieces and gives the vectors of one call, in input order", async () => {
    const inner = new CountingEmbeddings();
    const vectors = await new StoppableEmbeddings(inner, () => {}, 32).embedDocuments(texts);
    expect(inner.sizes).toEqual([32, 32, 6]);
    expect(vectors).toEqual(await new DeterministicEmbeddings().embedDocuments(texts));
  });

  it("stops before the next piece once the check throws: no further model call", async () => {
    const inner = new CountingEmbeddings();
    const stop = new Error("the service is stopping");
    const embeddings = new StoppableEmbeddings(
      inner,
      () => {
        if (inner.sizes.length === 1) throw stop;
      },
      32,
    );
    await expect(embeddings.embedDocuments(texts)).rejects.toBe(stop);
    expect(inner.sizes).toEqual([32]);
  });

  it("passes queries through unchecked", async () => {
    const embeddings = new StoppableEmbeddings(
      new DeterministicEmbeddings(),
      () => {
        throw new Error("stopping");
      },
      32,
    );
    expect(await embeddings.embedQuery("badge")).toEqual(await new DeterministicEmbeddings().embedQuery("badge"));
    await expect(embeddings.embedDocuments([])).resolves.toEqual([]);
  });
});
