import { describe, expect, it } from "vitest";
import { citedKeys, formatCitation, markBareCitations, replaceCitations, stripCitations, tidyAfterCitations } from "./citations.js";

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

describe("markBareCitations", () => {
  const keys = ["doc_1", "doc_2", "doc_10"];
  it.each([
    [
      "The project is UDHR in Unicode, which is described in document doc_1.",
      "The project is UDHR in Unicode, which is described in [Source: doc_1].",
    ],
    ["Ten days [doc_2].", "Ten days [Source: doc_2]."],
    ["Ten days (doc_1, doc_2).", "Ten days [Source: doc_1, doc_2]."],
    ["Ten days (Source: doc_10).", "Ten days [Source: doc_10]."],
    ["Ten days. Source: doc_1", "Ten days. [Source: doc_1]"],
    ["See Doc_1 and doc_2 for details.", "See [Source: doc_1, doc_2] for details."],
    ["According to the source doc_2, ten days.", "According to [Source: doc_2], ten days."],
  ])("%s", (text, expected) => {
    expect(markBareCitations(text, keys)).toBe(expected);
  });

  it("leaves markers, other keys and longer words alone", () => {
    expect(markBareCitations("Ten days [Source: doc_1].", keys)).toBe("Ten days [Source: doc_1].");
    expect(markBareCitations("Ten days (doc_3), see mydoc_1 or doc_1x.", keys)).toBe("Ten days (doc_3), see mydoc_1 or doc_1x.");
    expect(markBareCitations("Ten days doc_1.", [])).toBe("Ten days doc_1.");
  });
});

describe("tidyAfterCitations", () => {
  it("collapses the spaces a removed marker leaves, but not inside code", () => {
    expect(tidyAfterCitations("Ten days  . Run `sync ./photos  now` then")).toBe("Ten days. Run `sync ./photos  now` then");
    expect(tidyAfterCitations("Run:\n```\nls -a .\n```\n .")).toBe("Run:\n```\nls -a .\n```\n.");
  });

  it("keeps the space before a number written with a leading point", () => {
    expect(tidyAfterCitations("The sugar share of the bar is .546 .")).toBe("The sugar share of the bar is .546.");
  });
});
