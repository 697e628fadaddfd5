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
    const pieces = await split(long);
    // One semantic cut (after sentence 9, the 95th-percentile distance), then each side split to 60 characters.
    expect(pieces).toEqual([
      "Sentence number 0 talks about the same topic. Sentence",
      "number 1 talks about the same topic. Sentence number 2",
      "talks about the same topic. Sentence number 3 talks about",
      "the same topic. Sentence number 4 talks about the same",
      "topic. Sentence number 5 talks about the same topic.",
      "Sentence number 6 talks about the same topic. Sentence",
      "number 7 talks about the same topic. Sentence number 8",
      "talks about the same topic. Sentence number 9 talks about",
      "the same topic.",
      "Sentence number 10 talks about the same topic. Sentence",
      "number 11 talks about the same topic.",
    ]);
    expect(pieces.join(" ")).toBe(long);
    expect(Math.max(...pieces.map((piece) => piece.length))).toBeLessThanOrEqual(60);
  });
});
