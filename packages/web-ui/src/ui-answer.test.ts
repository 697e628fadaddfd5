import type { PredictResult } from "@docqa/core";
import { describe, expect, it } from "vitest";
import { uiAnswer } from "./ui-answer.js";

const source = (title: string, text: string, metadata: Record<string, unknown>) => ({ title, source: "", page_content: text, metadata });

function result(answer: Partial<PredictResult["answer"]>, sources: PredictResult["sources"]): PredictResult {
  return {
    answer: { callout_answer: "", positive_list: [], negative_list: [], info_list: [], keywords: [], ...answer },
    sources,
    query: "q",
    originalQuery: "q",
    input: "q",
    threadId: "7d1c1f0e-0000-4000-8000-000000000000",
    answerMode: "extractive",
    droppedCitations: [],
    timings: { retrievalMs: 1, contextMs: 0, llmMs: 0, postMs: 0, totalMs: 2 },
  };
}

describe("uiAnswer", () => {
  it("numbers sources in the order they are first cited, across the callout and the lists", () => {
    const answer = uiAnswer(
      result(
        {
          callout_answer: "Twenty days [Source: doc_4], five carried over [Source: doc_2, doc_4].",
          positive_list: ["Pro rata [Source: doc_2]"],
          negative_list: ["Unknown key [Source: doc_9]"],
        },
        {
          doc_2: source("Carry-over", "Five days carry over.", { filename: "carry.md", doc_id: "carry.md", page: 3 }),
          doc_4: source("Vacation", "Twenty days.", { doc_id: "docs/hr/vacation.txt#2" }),
        },
      ),
    );
    expect(answer.callout).toEqual([
      { text: "Twenty days " },
      { cite: [1] },
      { text: ", five carried over " },
      { cite: [2, 1] },
      { text: "." },
    ]);
    expect(answer.positives).toEqual([[{ text: "Pro rata " }, { cite: [2] }]]);
    expect(answer.caveats).toEqual([[{ text: "Unknown key " }]]);
    expect(answer.sources).toEqual([
      {
        number: 1,
        key: "doc_4",
        title: "Vacation",
        fileName: "vacation.txt#2",
        location: "",
        passage: "Twenty days.",
        docId: "docs/hr/vacation.txt#2",
      },
      {
        number: 2,
        key: "doc_2",
        title: "Carry-over",
        fileName: "carry.md",
        location: "page 3",
        passage: "Five days carry over.",
        docId: "carry.md",
      },
    ]);
    expect(answer.abstained).toBe(false);
  });

  it("names the files a summary node summarises", () => {
    const summary = source("Summary", "Both policies.", {
      doc_id: "raptor:1f2e",
      raptor_level: 1,
      raptor_documents: [{ doc_id: "policies/vacation.md" }, { doc_id: "records.json#4" }, { doc_id: "policies/vacation.md" }],
    });
    const answer = uiAnswer(result({ callout_answer: "Both [Source: doc_1]" }, { doc_1: summary }));
    expect(answer.sources[0]?.fileName).toBe("summary of vacation.md, records.json");
  });

  it("takes the service's abstention fields when present", () => {
    const declared = { ...result({ callout_answer: "Not in the documents." }, {}), abstained: true, abstentionReason: "low_relevance" };
    expect(uiAnswer(declared)).toMatchObject({ abstained: true, abstentionReason: "low_relevance", sources: [] });
  });
});
