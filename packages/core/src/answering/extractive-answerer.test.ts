import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadFile } from "../ingestion/loaders/load-file.js";
import { type ChunkRecord, chunkId } from "../stores/chunk-record.js";
import { isContinuousIntegration, sharedDataPath } from "../testing/shared-data.js";
import { createEnglishAnalyzer } from "../text/analyzer.js";
import { emptyContextAnswer } from "./answer.js";
import type { GeneratedAnswer } from "./answerer.js";
import { type AnswerContext, buildContext } from "./build-context.js";
import { citedKeys } from "./citations.js";
import { createExtractiveAnswerer } from "./extractive-answerer.js";
import { resolveCitations } from "./resolve-citations.js";

function chunk(docId: string, title: string, text: string): ChunkRecord {
  return {
    id: chunkId(docId, 0),
    docId,
    chunkIndex: 0,
    text,
    title,
    source: "handbook",
    ownerId: "hr@x.org",
    acl: "|user:_all_|",
    metadata: {},
    contentHash: `hash-${docId}`,
  };
}

const leave = chunk(
  "leave",
  "Leave policy",
  [
    "Employees receive twenty days of paid annual leave each year.",
    "Unused annual leave cannot be carried over to the next year.",
    "The leave year starts in January.",
  ].join(" "),
);
const travel = chunk(
  "travel",
  "Travel expenses",
  ["Travel expenses are reimbursed within thirty days of submission.", "Receipts must be attached to every claim."].join(" "),
);
const parking = chunk("parking", "Parking", "Staff may park in the north car park. Visitors use the south entrance.");

/** Ranked leave (doc_1), travel (doc_2), parking (doc_3). */
const context: AnswerContext = buildContext(
  [
    { chunk: leave, score: 0.9 },
    { chunk: travel, score: 0.6 },
    { chunk: parking, score: 0.3 },
  ],
  { maxDocChars: 4000, maxContextChars: 16000 },
);

const answerer = createExtractiveAnswerer();
const sharedDocuments = sharedDataPath("documents");

/** Every text field of an answer. */
const allTexts = (generated: GeneratedAnswer) => [
  generated.answer.callout_answer,
  ...generated.answer.positive_list,
  ...generated.answer.negative_list,
  ...generated.answer.info_list,
];

describe("createExtractiveAnswerer", () => {
  it("is named extractive", () => {
    expect(answerer.name).toBe("extractive");
  });

  it("builds the context the tests rely on", () => {
    expect(context.entries.map((entry) => [entry.key, entry.chunk.docId])).toEqual([
      ["doc_1", "leave"],
      ["doc_2", "travel"],
      ["doc_3", "parking"],
    ]);
  });

  it("makes the sentence that answers the question the callout, citing its chunk", async () => {
    const generated = await answerer.answer({ question: "How many days of annual leave do employees receive?", context });
    expect(generated.abstained).toBe(false);
    expect(generated.mode).toBe("extractive");
    expect(generated.model).toBe("extractive");
    expect(generated.answer.callout_answer).toBe("Employees receive twenty days of paid annual leave each year. [Source: doc_1]");
  });

  it("cites the chunk that answers, not simply the top-ranked one", async () => {
    const generated = await answerer.answer({ question: "How quickly are travel expenses reimbursed?", context });
    expect(generated.abstained).toBe(false);
    // The callout is the one answering sentence, however short.
    expect(generated.answer.callout_answer).toBe("Travel expenses are reimbursed within thirty days of submission. [Source: doc_2]");
  });

  it("puts a caveat sentence from the callout's chunk into negative_list", async () => {
    const generated = await answerer.answer({ question: "How many days of annual leave do employees receive?", context });
    expect(generated.answer.negative_list).toEqual(["Unused annual leave cannot be carried over to the next year. [Source: doc_1]"]);
    expect(generated.answer.positive_list).not.toContain("Unused annual leave cannot be carried over to the next year. [Source: doc_1]");
  });

  it("never appends a caveat sentence to a short callout", async () => {
    const generated = await answerer.answer({ question: "How many days of annual leave do employees receive?", context });
    expect(generated.answer.callout_answer).not.toContain("cannot");
  });

  it("gives as keywords the question words found in the cited text, most specific first", async () => {
    const generated = await answerer.answer({ question: "How many days of annual leave do employees receive?", context });
    // employees and receive occur in one sentence (highest idf), days and annual in two, leave in
    // three; "days", a common English word, weighs less than "annual" (backgroundWeight).
    expect(generated.answer.keywords).toEqual(["employees", "receive", "annual", "days", "leave"]);
  });

  it("leaves out question words that the cited text does not contain", async () => {
    const generated = await answerer.answer({ question: "How many days of annual leave do contractors receive?", context });
    expect(generated.abstained).toBe(false);
    expect(generated.answer.keywords).not.toContain("contractors");
    expect(generated.answer.keywords).not.toContain("how");
    expect(generated.answer.keywords).toContain("leave");
  });

  it("only cites keys of the context", async () => {
    for (const question of [
      "How many days of annual leave do employees receive?",
      "How quickly are travel expenses reimbursed?",
      "Where may staff park?",
    ]) {
      const generated = await answerer.answer({ question, context });
      const keys = allTexts(generated).flatMap(citedKeys);
      expect(keys.length).toBeGreaterThan(0);
      for (const key of keys) expect(Object.keys(context.sources)).toContain(key);
      expect(resolveCitations(generated.answer, context.sources).unknownKeys).toEqual([]);
    }
  });

  it("ends every list item with a citation", async () => {
    const generated = await answerer.answer({ question: "How many days of annual leave do employees receive?", context });
    for (const text of allTexts(generated)) expect(text).toMatch(/ \[Source: doc_\d+\]$/);
  });

  it("abstains with the empty-context answer when the context does not cover the question", async () => {
    const generated = await answerer.answer({ question: "What is the dress code for the summer party?", context });
    expect(generated).toEqual({
      answer: emptyContextAnswer(),
      mode: "extractive",
      model: "extractive",
      abstained: true,
      abstentionReason: "low_relevance",
      numPredict: null,
      numCtx: null,
    });
  });

  it("abstains on an empty context", async () => {
    const empty = buildContext([], { maxDocChars: 4000, maxContextChars: 16000 });
    const generated = await answerer.answer({ question: "How many days of annual leave do employees receive?", context: empty });
    expect(generated.abstained).toBe(true);
    expect(generated.answer).toEqual(emptyContextAnswer());
  });

  it("abstains when the best coverage is below minimumCoverage", async () => {
    // "park" matches but "dress" and "code" do not, so coverage is about one third.
    const question = "What is the dress code in the car park?";
    const strict = createExtractiveAnswerer({ minimumCoverage: 0.9 });
    expect((await strict.answer({ question, context })).abstained).toBe(true);
    const lenient = createExtractiveAnswerer({ minimumCoverage: 0.1 });
    const generated = await lenient.answer({ question, context });
    expect(generated.abstained).toBe(false);
    expect(generated.answer.callout_answer).toMatch(/\[Source: doc_3\]$/);
  });

  it("adds supporting points only when they add an answer-bearing fact, and caveats only on the callout's subject", async () => {
    const richer = buildContext(
      [
        { chunk: leave, score: 0.9 },
        {
          chunk: chunk("part-time", "Part-time work", "Part-time employees receive twelve days of annual leave each year."),
          score: 0.7,
        },
        {
          chunk: chunk("proportion", "Contracts", "Annual leave days of employees follow their contracted hours."),
          score: 0.6,
        },
        { chunk: chunk("printing", "Printing", "Colour printing is limited to 200 pages per employee each year."), score: 0.5 },
        { chunk: travel, score: 0.3 },
      ],
      { maxDocChars: 4000, maxContextChars: 16000 },
    );
    const generated = await answerer.answer({ question: "How many days of annual leave do employees receive?", context: richer });
    expect(generated.answer).toEqual({
      callout_answer: "Employees receive twenty days of paid annual leave each year. [Source: doc_1]",
      // Gives a number of days: an answer-bearing fact. "Annual leave days of employees follow their
      // contracted hours." covers the question as well but gives no number, so it is left out.
      positive_list: ["Part-time employees receive twelve days of annual leave each year. [Source: doc_2]"],
      // Qualifies the callout (same document, next to it); the printing limit is not about leave.
      negative_list: ["Unused annual leave cannot be carried over to the next year. [Source: doc_1]"],
      info_list: [],
      keywords: ["receive", "annual", "employees", "days", "leave"],
    });
    expect(resolveCitations(generated.answer, richer.sources).unknownKeys).toEqual([]);
  });

  it("does not support an answer about new employees with a fact about full-time employees", async () => {
    const policy = buildContext(
      [
        {
          chunk: chunk(
            "vacation",
            "Vacation",
            "Full-time employees receive 25 days of paid vacation per calendar year. New employees receive 20 vacation days in their first calendar year.",
          ),
          score: 1,
        },
      ],
      { maxDocChars: 4000, maxContextChars: 16000 },
    );
    const generated = await answerer.answer({ question: "How many vacation days do new employees get?", context: policy });
    expect(generated.answer.callout_answer).toBe("New employees receive 20 vacation days in their first calendar year. [Source: doc_1]");
    expect(generated.answer.positive_list).toEqual([]);
  });

  it("leaves every list empty when nothing else answers", async () => {
    const generated = await answerer.answer({ question: "How quickly are travel expenses reimbursed?", context });
    expect(generated.answer.positive_list).toEqual([]);
    expect(generated.answer.negative_list).toEqual([]);
    expect(generated.answer.info_list).toEqual([]);
  });

  it("caps each list at maximumListItems and gives info_list at most one other document", async () => {
    const many = buildContext(
      Array.from({ length: 6 }, (_, index) => ({
        chunk: chunk(`d${index}`, `Doc ${index}`, `Employees in office ${index} receive ${20 + index} annual leave days each year.`),
        score: 1 - index / 10,
      })),
      { maxDocChars: 4000, maxContextChars: 16000 },
    );
    const capped = createExtractiveAnswerer({ maximumListItems: 1 });
    const generated = await capped.answer({ question: "How many days of annual leave do employees receive?", context: many });
    expect(generated.answer.callout_answer).toMatch(/\[Source: doc_1\]$/);
    expect(generated.answer.positive_list).toHaveLength(1);
    expect(generated.answer.info_list).toHaveLength(1);
    // With the default of two, the same context fills two positive items and still one info item.
    const uncapped = await answerer.answer({ question: "How many days of annual leave do employees receive?", context: many });
    expect(uncapped.answer.positive_list).toHaveLength(2);
    expect(uncapped.answer.info_list).toHaveLength(1);
  });

  // Bug: a short callout takes its successor along even when that successor is the heading of the
  // next section (a fragment), giving "... annual leave. Travel [Source: doc_1]".
  // extractive-answerer.ts line 114 checks only the caveat pattern, not `next.fragment`.
  it("does not append the next section's heading to a short callout", async () => {
    const handbook = buildContext(
      [
        {
          chunk: chunk(
            "handbook",
            "Handbook",
            "# Leave\nEmployees receive twenty days of paid annual leave.\n\n# Travel\nTravel is booked through the portal.",
          ),
          score: 1,
        },
      ],
      { maxDocChars: 4000, maxContextChars: 16000 },
    );
    const generated = await answerer.answer({ question: "How many days of annual leave do employees receive?", context: handbook });
    expect(generated.answer.callout_answer).toBe("Employees receive twenty days of paid annual leave. [Source: doc_1]");
  });

  it("accepts another analyzer", async () => {
    const noStem = createExtractiveAnswerer({ analyzer: createEnglishAnalyzer({ stem: false }) });
    // Without stemming "employee" no longer matches "Employees".
    const generated = await noStem.answer({ question: "How many paid days does one employee get?", context });
    expect(generated.answer.callout_answer).toBe("Employees receive twenty days of paid annual leave each year. [Source: doc_1]");
    expect(generated.answer.keywords).toEqual(["paid", "days"]);
  });
  describe("answer selection: records, counts and instructions", () => {
    const contextOf = (...chunks: ChunkRecord[]) =>
      buildContext(
        chunks.map((item, index) => ({ chunk: item, score: 1 - index / 10 })),
        { maxDocChars: 4000, maxContextChars: 16000 },
      );
    const record = (docId: string, title: string, fields: Record<string, string | number>) =>
      chunk(
        docId,
        title,
        Object.entries(fields)
          .map(([key, value]) => `${key}: ${value}`)
          .join("\n"),
      );

    it("answers a JSON record with the field asked for, named by the record's line that the question states", async () => {
      const tin = record("metals#3", "Tin (metals)", { number: 50, name: "Tin", smelted_by: "Bronze Age smiths", melting_point: 505 });
      const lead = record("metals#4", "Lead (metals)", { number: 82, name: "Lead", smelted_by: "Anatolian smiths" });
      const who = await answerer.answer({ question: "Who smelted tin first?", context: contextOf(tin, lead) });
      expect(who.answer.callout_answer).toBe("name: Tin; smelted_by: Bronze Age smiths [Source: doc_1]");
      const melting = await answerer.answer({ question: "What is the melting point of tin?", context: contextOf(tin, lead) });
      expect(melting.answer.callout_answer).toBe("name: Tin; melting_point: 505 [Source: doc_1]");
    });

    it("answers 'how many X' with the sentence that counts X, not one counting other things the question names", async () => {
      const report = chunk(
        "report",
        "Shipment report",
        "We shipped 400 chairs, 120 desks and 30 lamps to the new office on 3 March. Altogether 6 vans were used for 9 hours.",
      );
      const vans = await answerer.answer({
        question: "How many vans were used to ship the chairs, desks and lamps?",
        context: contextOf(report),
      });
      expect(vans.answer.callout_answer).toBe("Altogether 6 vans were used for 9 hours. [Source: doc_1]");
      const chairs = await answerer.answer({ question: "How many chairs were shipped to the new office?", context: contextOf(report) });
      expect(chairs.answer.callout_answer).toMatch(/^We shipped 400 chairs/);
    });

    it("answers from a table row whose header abbreviates the asked years", async () => {
      const rows = chunk(
        "crops",
        "crops",
        [
          "farm: Hill End; harvests_90_99: 9; failed_harvests_90_99: 1; harvests_00_09: 10",
          "farm: Low Mill; harvests_90_99: 10; failed_harvests_90_99: 3; harvests_00_09: 10",
        ].join("\n"),
      );
      const generated = await answerer.answer({
        question: "How many failed harvests did Low Mill have from 1990 to 1999?",
        context: contextOf(rows),
      });
      expect(generated.abstained).toBe(false);
      expect(generated.answer.callout_answer).toBe(
        "farm: Low Mill; harvests_90_99: 10; failed_harvests_90_99: 3; harvests_00_09: 10 [Source: doc_1]",
      );
    });

    it("answers a how-to question with the instruction and its command, read under its section heading", async () => {
      const guide = chunk(
        "guide",
        "Setup guide",
        [
          "## Setup",
          "The first step is to install Zephyr.",
          "### Installing zephyrup on Linux",
          "Open a terminal and enter the following command:",
          "```console",
          "$ wget https://example.org/zephyrup.sh && sh zephyrup.sh",
          "```",
          "Zephyr also needs a C compiler, so install GCC or Clang first.",
        ].join("\n"),
      );
      const generated = await answerer.answer({ question: "How do I install Zephyr?", context: contextOf(guide) });
      expect(generated.answer.callout_answer).toBe(
        "Open a terminal and enter the following command: $ wget https://example.org/zephyrup.sh && sh zephyrup.sh [Source: doc_1]",
      );
    });

    it("tells instructions under one heading apart by the names they state and by their own words", async () => {
      const guide = chunk(
        "guide",
        "Setup guide",
        [
          "### Installing and removing Zephyr on Linux or macOS",
          "On macOS, open a terminal and run:",
          "```console",
          "$ brew install zephyr",
          "```",
          "On Linux, open a terminal and run:",
          "```console",
          "$ apt install zephyr",
          "```",
          "From your shell, run the following script:",
          "```console",
          "$ zephyr self update",
          "```",
          "To remove Zephyr, run the following script from your shell:",
          "```console",
          "$ zephyr self remove",
          "```",
          "To check whether Zephyr is installed, run:",
          "```console",
          "$ zephyr --version",
          "```",
        ].join("\n"),
      );
      const ask = async (question: string) => (await answerer.answer({ question, context: contextOf(guide) })).answer.callout_answer;
      // The heading names Linux for every instruction under it; only one states it itself.
      expect(await ask("How do I install Zephyr on Linux?")).toBe(
        "On Linux, open a terminal and run: $ apt install zephyr [Source: doc_1]",
      );
      // The heading covers "remove" for every instruction; the one whose own words do comes first.
      expect(await ask("How do I remove Zephyr?")).toBe(
        "To remove Zephyr, run the following script from your shell: $ zephyr self remove [Source: doc_1]",
      );
      // An instruction for another purpose ("To check whether … installed") answers no "how do I install".
      expect(await ask("How do I install Zephyr on macOS?")).toBe(
        "On macOS, open a terminal and run: $ brew install zephyr [Source: doc_1]",
      );
    });
  });

  describe.skipIf(!sharedDocuments && !isContinuousIntegration())("answer selection on ../shared/data/documents", () => {
    const load = async (folder: string, name: string) =>
      (
        await loadFile(
          { name, bytes: readFileSync(join(sharedDocuments as string, folder, name)) },
          { limits: { maxFileBytes: 50_000_000, maxExtractedChars: 50_000_000 }, chunkSize: 1000 },
        )
      ).documents;
    const contextOf = (sections: { docId: string; title: string; text: string }[]) =>
      buildContext(
        sections.map((section, index) => ({ chunk: chunk(section.docId, section.title, section.text), score: 1 - index / 100 })),
        { maxDocChars: 40_000, maxContextChars: 400_000 },
      );
    const sectionsOf = (documents: Awaited<ReturnType<typeof load>>, keep: (text: string, title: string) => boolean) =>
      documents.flatMap((document, index) =>
        document.sections
          .filter((section) => keep(section.text, document.title))
          .map((section) => ({ docId: `${document.title}#${index}`, title: document.title, text: section.text })),
      );

    it("answers elements.json and us_presidents.json with the field asked for", async () => {
      const elements = sectionsOf(await load("json", "elements.json"), (_, title) => /^(Oxygen|Hydrogen|Nitrogen) /.test(title));
      const who = await answerer.answer({ question: "Who discovered oxygen?", context: contextOf(elements) });
      expect(who.answer.callout_answer).toMatch(/^name: Oxygen; discoverer: Priestley\/Scheele \[Source: doc_\d\]$/);
      const presidents = sectionsOf(await load("json", "us_presidents.json"), (text) => /Obama|Bush/.test(text));
      const start = await answerer.answer({ question: "When did Barack Obama's term as President start?", context: contextOf(presidents) });
      expect(start.answer.callout_answer).toMatch(/startdate: 2009-01-20 \[Source: doc_\d\]$/);
    });

    it("answers the memo's 'how many trucks' and the airline table's 1985-1999 accidents", async () => {
      const memo = sectionsOf(await load("pdf", "memo-1p.pdf"), () => true);
      const trucks = await answerer.answer({
        question: "How many trucks were used for the delivery of water, blankets and laptops?",
        context: contextOf(memo),
      });
      expect(trucks.answer.callout_answer).toBe("A total of 3 trucks were used for 15 hours. [Source: doc_1]");
      const airlines = sectionsOf(await load("csv", "airline_safety.csv"), (text) => text.includes("Aeroflot"));
      const accidents = await answerer.answer({
        question: "How many fatal accidents did Aeroflot have from 1985 to 1999?",
        context: contextOf(airlines),
      });
      expect(accidents.abstained).toBe(false);
      expect(accidents.answer.callout_answer).toMatch(/^airline: Aeroflot\*; .*fatal_accidents_85_99: 14;/);
    });

    it("answers 'How do I install Rust?' with the curl command", async () => {
      const book = sectionsOf(await load("md", "rust-book-ch01-01-installation.md"), () => true);
      const generated = await answerer.answer({ question: "How do I install Rust?", context: contextOf(book) });
      expect(generated.answer.callout_answer).toMatch(
        /enter the following command: \$ curl --proto '=https' --tlsv1\.2 https:\/\/sh\.rustup\.rs -sSf \| sh \[Source: doc_\d\]$/,
      );
      const update = await answerer.answer({
        question: "How do you update Rust to the latest version with rustup?",
        context: contextOf(book),
      });
      expect(update.answer.callout_answer).toMatch(/\$ rustup update \[Source: doc_\d\]$/);
      // An instruction states no proposition, so "run the following update script" is no substitution of "update Rust".
      const shortUpdate = await answerer.answer({ question: "How do I update Rust?", context: contextOf(book) });
      expect(shortUpdate.abstained).toBe(false);
      expect(shortUpdate.answer.callout_answer).toMatch(/\$ rustup update \[Source: doc_\d\]$/);
      const uninstall = await answerer.answer({ question: "How do I uninstall Rust?", context: contextOf(book) });
      expect(uninstall.answer.callout_answer).toMatch(/\$ rustup self uninstall \[Source: doc_\d\]$/);
    });
  });
});
