import { describe, expect, it } from "vitest";
import { DeterministicEmbeddings } from "../testing/deterministic-embeddings.js";
import { createSemanticSplit } from "./semantic-split.js";

describe("createSemanticSplit", () => {
  it("cuts where adjacent sentences change topic", async () => {
    const cats = [
      "Cats sleep most of the day in warm places.",
      "A sleeping cat purrs when the cats feel safe.",
      "Cats groom their fur after they sleep.",
      "Old cats sleep even longer than young cats.",
    ];
    const taxes = [
      "Income tax returns are due in April.",
      "The tax office checks every income tax return.",
      "Late tax returns pay a penalty on the income tax.",
      "Tax advisers file returns for a fee.",
    ];
    const split = createSemanticSplit({
      embeddings: new DeterministicEmbeddings({ dimension: 256 }),
      chunkSize: 1000,
      chunkOverlap: 0,
      minimumChars: 10,
    });
    expect(await split([...cats, ...taxes].join(" "))).toEqual([cats.join(" "), taxes.join(" ")]);
  });

  it("falls back to the recursive splitter for short texts, and splits long pieces to the chunk size", async () => {
    const split = createSemanticSplit({ embeddings: new DeterministicEmbeddings(), chunkSize: 60, chunkOverlap: 0 });
    expect(await split("One sentence only.")).toEqual(["One sentence only."]);
    const long = Array.from({ length: 12 }, (_, index) => `Sentence number ${index} talks about the same topic.`).join(" ");
    for (const piece of await split(long)) expect(piece.length).toBeLessThanOrEqual(60);
  });
});
