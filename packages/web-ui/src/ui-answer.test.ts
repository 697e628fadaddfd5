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
    threadId: "7d1c1f0e-0000-4000-8000-000000000000",
    answerMode: "extractive",
    droppedCitations: [],
    abstained: false,
    abstentionReason: null,
    unsupportedCitations: [],
    timings: { retrievalMs: 1, contextMs: 0, llmMs: 0, postMs: 0, totalMs: 2 },
    stages: [],
    subqueries: [],
    generation: { model: "extractive", numPredict: null, numCtx: null, fallbackReason: null, promptVersion: null },
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
        cited: [{ start: 0, end: 12 }],
        docId: "docs/hr/vacation.txt#2",
      },
      {
        number: 2,
        key: "doc_2",
        title: "Carry-over",
        fileName: "carry.md",
        location: "page 3",
        passage: "Five days carry over.",
        cited: [{ start: 0, end: 21 }],
        docId: "carry.md",
      },
    ]);
    expect(answer.abstained).toBe(false);
  });

  it("gives two sources of one file distinct labels: the chunk when file and place are the same, the document id across owners", () => {
    const chunk = (docId: string, index: number, text: string, extra: Record<string, unknown> = {}) =>
      source("Vacation", text, { filename: "vacation.md", doc_id: docId, chunk_index: index, section: "Leave", ...extra });
    const answer = uiAnswer(
      result(
        { callout_answer: "A [Source: doc_1] B [Source: doc_2] C [Source: doc_3] D [Source: doc_4] E [Source: doc_5]" },
        {
          doc_1: chunk("ann@x.org/vacation.md", 0, "Twenty days."),
          doc_2: chunk("ann@x.org/vacation.md", 3, "Five days."),
          doc_3: chunk("ann@x.org/vacation.md", 4, "Sick leave.", { section: "Sickness" }),
          doc_4: source("Parking", "Level two.", { filename: "parking.md", doc_id: "ann@x.org/parking.md", chunk_index: 0 }),
          doc_5: source("Parking", "Level three.", { filename: "parking.md", doc_id: "bob@x.org/parking.md", chunk_index: 0 }),
        },
      ),
    );
    expect(answer.sources.map((cited) => `${cited.fileName}, ${cited.location}`)).toEqual([
      "vacation.md, section Leave, chunk 0",
      "vacation.md, section Leave, chunk 3",
      "vacation.md, section Sickness",
      "ann@x.org/parking.md, ",
      "bob@x.org/parking.md, ",
    ]);
  });

  it("marks the sentences of the passage the answer drew on: quoted, or paraphrased keeping half their words", () => {
    const passage =
      "# Vacation\n\nFull-time employees receive 25 days of paid vacation per year. New employees receive\n20 days in their first year.\n\nUp to five unused days may be carried over.";
    const answer = uiAnswer(
      result(
        {
          callout_answer: "New employees receive 20 days in their first year. [Source: doc_1]",
          positive_list: ["Five unused days can be carried into the next year [Source: doc_1]", "Parking is free [Source: doc_1]"],
        },
        { doc_1: source("Vacation", passage, { filename: "vacation.md", doc_id: "vacation.md" }) },
      ),
    );
    const cited = (answer.sources[0]?.cited ?? []).map(({ start, end }) => passage.slice(start, end));
    // A sentence wrapped over two lines is one sentence.
    expect(cited).toEqual(["New employees receive\n20 days in their first year.", "Up to five unused days may be carried over."]);
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

  it("takes the service's abstention fields", () => {
    const declared: PredictResult = {
      ...result({ callout_answer: "No information could be found in the provided sources to answer this question." }, {}),
      answerMode: "empty-context",
      abstained: true,
      abstentionReason: "low_relevance",
    };
    expect(uiAnswer(declared)).toMatchObject({
      abstained: true,
      abstentionReason: "low_relevance",
      sources: [],
      callout: [{ text: declared.answer.callout_answer }],
    });
    // A model that abstains answers in its own words; the flag alone marks the abstention.
    const byModel: PredictResult = {
      ...result({ callout_answer: "The documents do not say." }, {}),
      answerMode: "model",
      abstained: true,
      abstentionReason: "not_answerable",
    };
    expect(uiAnswer(byModel)).toMatchObject({ abstained: true, abstentionReason: "not_answerable" });
    expect(
      uiAnswer(
        result({ callout_answer: "Twenty days [Source: doc_1]" }, { doc_1: source("Leave", "Twenty days.", { filename: "leave.md" }) }),
      ),
    ).toMatchObject({
      abstained: false,
      abstentionReason: null,
    });
  });
});
