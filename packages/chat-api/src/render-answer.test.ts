import type { Answer, Source } from "@docqa/core";
import { describe, expect, it } from "vitest";
import { renderAnswer, sourceFileNames } from "./render-answer.js";

const source = (metadata: Record<string, unknown>, title = "Title"): Source => ({ title, source: "", page_content: "text", metadata });
const answer = (parts: Partial<Answer>): Answer => ({
  callout_answer: "",
  positive_list: [],
  negative_list: [],
  info_list: [],
  keywords: [],
  ...parts,
});

describe("renderAnswer", () => {
  it("numbers sources in order of first citation and lists each file with its location", () => {
    const sources = {
      doc_1: source({ filename: "handbook.pdf", page: 4, doc_id: "handbook.pdf" }),
      doc_2: source({ filename: "faq.md", section: "Leave > Vacation", doc_id: "faq.md" }),
      doc_3: source({ filename: "rates.csv", rows: "2-24", doc_id: "rates.csv" }),
      doc_4: source({ filename: "people.json", record: 3, doc_id: "people.json#3" }),
    };
    const rendered = renderAnswer(
      answer({
        callout_answer: "Employees get 25 days [Source: doc_2].",
        positive_list: ["Accrual is monthly [Source: doc_1, doc_2]", "Rates are listed [Source: doc_3]"],
        negative_list: ["Contractors are excluded [Source: doc_4]"],
        info_list: ["Ask HR for details"],
        keywords: ["vacation"],
      }),
      sources,
    );
    expect(rendered.text).toBe(
      [
        "Employees get 25 days [1].",
        "Supporting points:\n- Accrual is monthly [2, 1]\n- Rates are listed [3]",
        "Caveats:\n- Contractors are excluded [4]",
        "Further information:\n- Ask HR for details",
        "Sources:\n[1] faq.md, section Leave > Vacation\n[2] handbook.pdf, page 4\n[3] rates.csv, rows 2-24\n[4] people.json, record 3",
      ].join("\n\n"),
    );
    expect(rendered.files).toEqual(["faq.md", "handbook.pdf", "rates.csv", "people.json"]);
    expect(rendered.citedKeys).toEqual(["doc_2", "doc_1", "doc_3", "doc_4"]);
  });

  it("drops markers of unknown keys, lists a file once, and names the files a summary covers", () => {
    const sources = {
      doc_1: source({ filename: "a.txt", doc_id: "a.txt" }),
      doc_2: source({ filename: "a.txt", doc_id: "a.txt" }),
      doc_3: source(
        { type: "summary", raptor_level: 1, raptor_documents: [{ doc_id: "docs/b.md" }, { doc_id: "c.json#2" }] },
        "Summary of B; C",
      ),
    };
    const rendered = renderAnswer(
      answer({ callout_answer: "One [Source: doc_1] two [Source: doc_9] three [Source: doc_2] four [Source: doc_3]" }),
      sources,
    );
    expect(rendered.text).toBe("One [1] two three [2] four [3]\n\nSources:\n[1] a.txt\n[2] a.txt\n[3] summary of b.md, c.json");
    expect(rendered.files).toEqual(["a.txt", "b.md", "c.json"]);
  });

  it("renders an answer without citations as its text alone", () => {
    expect(renderAnswer(answer({ callout_answer: "No information." }), {})).toEqual({ text: "No information.", files: [], citedKeys: [] });
  });
});

describe("sourceFileNames", () => {
  it("prefers filename, then summarised documents, then the document id, then the fallback", () => {
    expect(sourceFileNames({ filename: "x.pdf", doc_id: "other" })).toEqual(["x.pdf"]);
    expect(sourceFileNames({ raptor_documents: [{ doc_id: "a/b.txt" }, { doc_id: "a/b.txt" }] })).toEqual(["b.txt"]);
    expect(sourceFileNames({ doc_id: "vacation-policy" })).toEqual(["vacation-policy"]);
    expect(sourceFileNames({}, "Title")).toEqual(["Title"]);
    expect(sourceFileNames({})).toEqual([]);
  });
});
