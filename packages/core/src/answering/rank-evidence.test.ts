import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import { describe, expect, it } from "vitest";
import { type ChunkRecord, chunkId } from "../stores/chunk-record.js";
import { createEnglishAnalyzer } from "../text/analyzer.js";
import { backgroundWeight } from "../text/word-frequency.js";
import { buildContext } from "./build-context.js";
import { minimumCollectionSize, rankEvidence } from "./rank-evidence.js";

const analyzer = createEnglishAnalyzer();

function chunk(docId: string, text: string, metadata: Record<string, unknown> = {}): ChunkRecord {
  return {
    id: chunkId(docId, 0),
    docId,
    chunkIndex: 0,
    text,
    title: docId,
    source: "",
    ownerId: "",
    acl: "",
    metadata,
    contentHash: docId,
  };
}

const limits = { maxDocChars: 4000, maxContextChars: 16000 };
const context = buildContext(
  [
    {
      chunk: chunk(
        "leave",
        "Vacation days are requested in the HR portal. New employees receive 20 vacation days in their first year. Alcohol is not reimbursed.",
      ),
      score: 1,
    },
    { chunk: chunk("travel", "Meals are reimbursed up to 60 euros per day."), score: 0.5 },
  ],
  limits,
);

/** Embeds by a fixed table: texts not in it get the zero vector. */
class TableEmbeddings implements EmbeddingsInterface {
  constructor(private readonly table: Record<string, number[]>) {}
  async embedQuery(text: string) {
    return this.table[`q:${text}`] ?? [0, 0];
  }
  async embedDocuments(texts: string[]) {
    return texts.map((text) => this.table[text] ?? [0, 0]);
  }
}

describe("rankEvidence", () => {
  it("ranks the sentence that covers the question and offers a number first", async () => {
    const evidence = await rankEvidence("How many vacation days do new employees get?", context, { analyzer });
    expect(evidence.expectedType).toBe("number");
    expect(evidence.sentences[0]?.text).toBe("New employees receive 20 vacation days in their first year.");
    expect(evidence.sentences[0]?.offersAnswer).toBe(true);
    // "Vacation days are requested ..." covers vacation and days but offers no number.
    expect(evidence.sentences[1]?.text).toBe("Vacation days are requested in the HR portal.");
    expect(evidence.sentences[1]?.offersAnswer).toBe(false);
    expect(evidence.denseUsed).toBe(false);
    expect(evidence.sentences[0]?.dense).toBeNull();
  });

  it("weights terms by idf over the context's sentences and measures coverage as a share of the question's weight", async () => {
    const evidence = await rankEvidence("How many vacation days do new employees get?", context, { analyzer });
    // Four sentences, counted as minimumCollectionSize (20); "new" and "employe" occur in one,
    // "vacat" in two, "dai" in three ("per day").
    expect(minimumCollectionSize).toBe(20);
    // Each idf is scaled by the word's background weight in general English.
    const idf = (frequency: number, word: string) => Math.log(1 + (20 - frequency + 0.5) / (frequency + 0.5)) * backgroundWeight(word);
    expect(evidence.questionTerms.map(({ term }) => term).sort()).toEqual(["dai", "employe", "new", "vacat"]);
    const total = idf(1, "new") + idf(1, "employees") + idf(2, "vacation") + idf(3, "days");
    expect(evidence.sentences[0]?.coverage).toBeCloseTo(1, 12);
    expect(evidence.sentences[1]?.coverage).toBeCloseTo((idf(2, "vacation") + idf(3, "days")) / total, 12);
    expect(evidence.contextCoverage).toBeCloseTo(1, 12);
  });

  it("tells a passage about the question from passages that each match one of its words", async () => {
    const scattered = buildContext(
      [
        { chunk: chunk("oil", "Oil prices rose in the crisis."), score: 1 },
        { chunk: chunk("engine", "The steam engine transformed industry."), score: 0.9 },
        { chunk: chunk("car", "The car park is full."), score: 0.8 },
      ],
      limits,
    );
    const evidence = await rankEvidence("How often should the engine oil of a car be changed?", scattered, { analyzer });
    // "often" and "chang" occur nowhere; oil, engin and car each in a different chunk.
    expect(evidence.contextCoverage).toBeGreaterThan(0.4);
    expect(evidence.passageCoverage).toBeLessThan(0.25);
  });

  it("measures the specific information the best passage shares, and reads a record's keys as its words", async () => {
    const record = buildContext(
      [{ chunk: chunk("elements", "name: Oxygen\ndiscoverer: Carl Wilhelm Scheele\nyear_of_discovery: 1772"), score: 1 }],
      limits,
    );
    const evidence = await rankEvidence("Who discovered oxygen?", record, { analyzer });
    // The key `discoverer` names "discovered": the record holds the whole question.
    expect(evidence.passageCoverage).toBe(1);
    expect(evidence.passageSpecificity).toBeCloseTo(backgroundWeight("oxygen") - 0.45 + (backgroundWeight("discovered") - 0.45), 6);

    const television = buildContext([{ chunk: chunk("tv", "Happy Days was a new sitcom in the 1970s."), score: 1 }], limits);
    const unrelated = await rankEvidence("How many vacation days do new employees get?", television, { analyzer });
    // Only "days" (just above the common-word weight) and "new" (below it) are shared.
    expect(unrelated.passageSpecificity).toBeCloseTo(backgroundWeight("days") - 0.45, 6);
    expect(unrelated.passageSpecificity).toBeLessThan(0.05);
  });

  it("reports the share of the question found anywhere in the context", async () => {
    const evidence = await rankEvidence("What is the capital city of Mongolia?", context, { analyzer });
    expect(evidence.contextCoverage).toBe(0);
    expect(evidence.sentences.every((sentence) => sentence.coverage === 0)).toBe(true);
  });

  it("adds the dense signal relative to the question's own similarity, and ranks with it", async () => {
    const question = "Which drinks are not paid back?";
    const embeddings = new TableEmbeddings({
      [`q:${question}`]: [1, 0],
      [question]: [0.8, 0.6],
      "Alcohol is not reimbursed.": [0.6, 0.8],
      "Meals are reimbursed up to 60 euros per day.": [0, 1],
    });
    const evidence = await rankEvidence(question, context, { analyzer, embeddings });
    expect(evidence.denseUsed).toBe(true);
    expect(evidence.questionNegated).toBe(true);
    const alcohol = evidence.sentences.find((sentence) => sentence.text === "Alcohol is not reimbursed.");
    // cos(q, s) = 0.6, cos(q, q as a passage) = 0.8: dense = 0.75.
    expect(alcohol?.dense).toBeCloseTo(0.75, 12);
    expect(evidence.sentences[0]?.text).toBe("Alcohol is not reimbursed.");
    expect(evidence.sentences[0]?.negated).toBe(true);
  });

  it("leaves the dense signal out when the model fails", async () => {
    const failing: EmbeddingsInterface = {
      embedQuery: async () => {
        throw new Error("model down");
      },
      embedDocuments: async () => {
        throw new Error("model down");
      },
    };
    const evidence = await rankEvidence("How many vacation days?", context, { analyzer, embeddings: failing });
    expect(evidence.denseUsed).toBe(false);
    expect(evidence.sentences.every((sentence) => sentence.dense === null)).toBe(true);
  });

  it("drops a summary node's sentence that a retrieved chunk also holds", async () => {
    const summary = chunk("raptor:1", "New employees receive 20 vacation days in their first year. Offices close at six.", {
      raptor_level: 1,
    });
    const withSummary = buildContext(
      [...context.entries.map(({ chunk: record }) => ({ chunk: record, score: 1 })), { chunk: summary, score: 0.2 }],
      limits,
    );
    const evidence = await rankEvidence("How many vacation days do new employees get?", withSummary, { analyzer });
    const copies = evidence.sentences.filter((sentence) => sentence.text === "New employees receive 20 vacation days in their first year.");
    expect(copies.map((sentence) => sentence.entry.chunk.docId)).toEqual(["leave"]);
    expect(evidence.sentences.some((sentence) => sentence.text === "Offices close at six.")).toBe(true);
  });

  it("reads a rendered record's title line as a heading and keeps its prose field's key off the first sentence", async () => {
    // A JSON record {"title": "Steam engine", "text": "<prose over 200 characters>"} as the JSON loader renders it.
    const record = {
      ...chunk("contexts#7", "title: Steam engine\ntext:\nIt was often used in mills. It powered the factories of the nineteenth century."),
      title: "Steam engine (contexts)",
    };
    const evidence = await rankEvidence(
      "How often should the engine oil of a car be changed?",
      buildContext([{ chunk: record, score: 1 }], limits),
      {
        analyzer,
      },
    );
    const texts = evidence.sentences.map((sentence) => sentence.text);
    expect(texts).toContain("It was often used in mills.");
    expect(texts.some((text) => text.startsWith("text: "))).toBe(false);
    // The line naming the document covers "engine" but states nothing: it is no answer sentence.
    expect(evidence.sentences[0]?.text).toBe("It was often used in mills.");
    expect(evidence.sentences.find((sentence) => sentence.text === "title: Steam engine")?.fragment).toBe(true);
  });

  it("prefers the table row naming the question's entity alone to a row whose name holds it with other words", async () => {
    const rows = buildContext(
      [
        {
          chunk: chunk(
            "candy",
            [
              "competitorname: Snickers Crisper; chocolate: 1; winpercent: 59.5",
              "competitorname: Snickers; chocolate: 1; winpercent: 76.7",
            ].join("\n"),
          ),
          score: 1,
        },
      ],
      limits,
    );
    const snickers = await rankEvidence("What is the winpercent of Snickers?", rows, { analyzer });
    // Both rows hold "Snickers" and the key; "Snickers Crisper" names another candy.
    expect(snickers.sentences[0]?.text).toBe("competitorname: Snickers; chocolate: 1; winpercent: 76.7");
    const crisper = await rankEvidence("What is the winpercent of Snickers Crisper?", rows, { analyzer });
    expect(crisper.sentences[0]?.text).toBe("competitorname: Snickers Crisper; chocolate: 1; winpercent: 59.5");
  });
});
