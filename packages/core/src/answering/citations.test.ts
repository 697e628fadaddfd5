import { describe, expect, it } from "vitest";
import { citedKeys, formatCitation, replaceCitations, stripCitations } from "./citations.js";

describe("the citation grammar", () => {
  it("reads markers in any case and spacing, with several keys, in order of first appearance", () => {
    expect(citedKeys("A [Source: doc_2]. B [source:doc_1 ; doc_2] C [ SOURCE : doc_3,doc_1 ]")).toEqual(["doc_2", "doc_1", "doc_3"]);
    expect(citedKeys("no markers [Source doc_1] [Src: doc_2]")).toEqual([]);
  });

  it("writes one marker for several keys, and nothing for none", () => {
    expect(formatCitation(["doc_1", "doc_3"])).toBe("[Source: doc_1, doc_3]");
    expect(formatCitation([])).toBe("");
  });

  it("rewrites and strips markers, tidying the spaces they leave", () => {
    expect(replaceCitations("Ten days [Source: doc_2, doc_9].", (keys) => formatCitation(keys.filter((key) => key !== "doc_9")))).toBe(
      "Ten days [Source: doc_2].",
    );
    expect(stripCitations("Ten days [Source: doc_2] and more [Source: doc_1] .")).toBe("Ten days and more.");
  });
});
