import { describe, expect, it } from "vitest";
import type { Answer, Source } from "./answer.js";
import { citedKeys } from "./citations.js";
import { resolveCitations } from "./resolve-citations.js";

const source = (title: string): Source => ({ title, source: "wiki", page_content: `${title} text`, metadata: { doc_id: title } });

const sources: Record<string, Source> = {
  doc_1: source("Leave"),
  doc_2: source("Travel"),
  doc_3: source("Payroll"),
};

const answer = (overrides: Partial<Answer>): Answer => ({
  callout_answer: "",
  positive_list: [],
  negative_list: [],
  info_list: [],
  keywords: [],
  ...overrides,
});

describe("citedKeys", () => {
  it("lists the keys of every marker in order of first appearance", () => {
    expect(citedKeys("A [Source: doc_2] and B [Source: doc_1] and again [Source: doc_2].")).toEqual(["doc_2", "doc_1"]);
  });

  it("splits multi-key markers on commas, semicolons and spaces", () => {
    expect(citedKeys("A [Source: doc_1, doc_2] B [Source: doc_3; doc_1] C [Source: doc_4 doc_5]")).toEqual([
      "doc_1",
      "doc_2",
      "doc_3",
      "doc_4",
      "doc_5",
    ]);
  });

  it("accepts any case of 'Source' and spacing around the colon", () => {
    expect(citedKeys("[source:doc_1] [SOURCE :  doc_2 ] [ Source: doc_3]")).toEqual(["doc_1", "doc_2", "doc_3"]);
  });

  it("returns [] for text without markers or with an empty marker", () => {
    expect(citedKeys("No citations here (doc_1).")).toEqual([]);
    expect(citedKeys("Empty [Source: ] marker")).toEqual([]);
  });
});

describe("resolveCitations", () => {
  it("keeps known citations and the sources they name", () => {
    const resolved = resolveCitations(answer({ callout_answer: "Ten days [Source: doc_2]" }), sources);
    expect(resolved.answer.callout_answer).toBe("Ten days [Source: doc_2]");
    expect(resolved.sources).toEqual({ doc_2: sources.doc_2 });
    expect(resolved.unknownKeys).toEqual([]);
  });

  it("removes a marker whose keys are all unknown and collapses the gap", () => {
    const resolved = resolveCitations(answer({ callout_answer: "Ten days [Source: doc_2] [Source: doc_9] left" }), sources);
    expect(resolved.answer.callout_answer).toBe("Ten days [Source: doc_2] left");
    expect(resolved.unknownKeys).toEqual(["doc_9"]);
  });

  it("drops unknown keys from a multi-key marker and keeps the known ones", () => {
    const resolved = resolveCitations(answer({ callout_answer: "Ten days [Source: doc_9, doc_1; doc_3 doc_8]" }), sources);
    expect(resolved.answer.callout_answer).toBe("Ten days [Source: doc_1, doc_3]");
    expect(resolved.sources).toEqual({ doc_1: sources.doc_1, doc_3: sources.doc_3 });
    expect(resolved.unknownKeys).toEqual(["doc_9", "doc_8"]);
  });

  it("rewrites markers to the canonical '[Source: key]' form", () => {
    const resolved = resolveCitations(answer({ callout_answer: "Yes [source :doc_1 ;doc_2]" }), sources);
    expect(resolved.answer.callout_answer).toBe("Yes [Source: doc_1, doc_2]");
  });

  it("prunes sources to those cited anywhere in the answer", () => {
    const resolved = resolveCitations(
      answer({
        callout_answer: "Summary [Source: doc_3]",
        positive_list: [],
        negative_list: ["Caveat [Source: doc_1]"],
      }),
      sources,
    );
    expect(Object.keys(resolved.sources)).toEqual(["doc_1", "doc_3"]);
    expect(resolved.sources.doc_1).toBe(sources.doc_1);
    expect(resolved.sources.doc_3).toBe(sources.doc_3);
  });

  it("returns no sources when nothing is cited", () => {
    const resolved = resolveCitations(answer({ callout_answer: "An answer without citations." }), sources);
    expect(resolved.sources).toEqual({});
    expect(resolved.answer.callout_answer).toBe("An answer without citations.");
  });

  it("removes list items that become empty and keeps the others", () => {
    const resolved = resolveCitations(
      answer({
        callout_answer: "Callout [Source: doc_1]",
        positive_list: ["[Source: doc_9]", "Fact [Source: doc_1]", "  [Source: doc_7, doc_8]  "],
        negative_list: ["[Source: doc_5]"],
        info_list: ["Info [Source: doc_2]", ""],
      }),
      sources,
    );
    expect(resolved.answer).toEqual({
      callout_answer: "Callout [Source: doc_1]",
      positive_list: ["Fact [Source: doc_1]"],
      negative_list: [],
      info_list: ["Info [Source: doc_2]"],
      keywords: [],
    });
    expect(resolved.unknownKeys).toEqual(["doc_9", "doc_7", "doc_8", "doc_5"]);
  });

  it("keeps an item whose text survives the removal of its only marker", () => {
    const resolved = resolveCitations(answer({ positive_list: ["A claim [Source: doc_9]"] }), sources);
    expect(resolved.answer.positive_list).toEqual(["A claim"]);
    expect(resolved.sources).toEqual({});
  });

  it("lists each unknown key once", () => {
    const resolved = resolveCitations(
      answer({ callout_answer: "A [Source: doc_9] B [Source: doc_9]", positive_list: ["C [Source: doc_9]"] }),
      sources,
    );
    expect(resolved.unknownKeys).toEqual(["doc_9"]);
  });

  it("does not treat inherited object properties as known keys", () => {
    const resolved = resolveCitations(answer({ callout_answer: "X [Source: toString, constructor]" }), sources);
    expect(resolved.answer.callout_answer).toBe("X");
    expect(resolved.unknownKeys).toEqual(["toString", "constructor"]);
    expect(resolved.sources).toEqual({});
  });

  it("trims keywords and removes empty ones", () => {
    const resolved = resolveCitations(answer({ keywords: [" leave ", "", "   ", "days"] }), sources);
    expect(resolved.answer.keywords).toEqual(["leave", "days"]);
  });

  it("does not modify its inputs", () => {
    const input = answer({ callout_answer: "A [Source: doc_9]", positive_list: ["[Source: doc_9]"] });
    const sourcesCopy = structuredClone(sources);
    resolveCitations(input, sources);
    expect(input).toEqual(answer({ callout_answer: "A [Source: doc_9]", positive_list: ["[Source: doc_9]"] }));
    expect(sources).toEqual(sourcesCopy);
  });
});
