import { describe, expect, it } from "vitest";
import { type ChunkRecord, chunkId } from "../stores/chunk-record.js";
import { createEnglishAnalyzer } from "../text/analyzer.js";
import { buildContext } from "./build-context.js";
import { createExtractiveAnswerer } from "./extractive-answerer.js";
import { rankEvidence } from "./rank-evidence.js";
import { tableEvidence, tableOf } from "./table-evidence.js";

const analyzer = createEnglishAnalyzer();
const rows = [
  "Year: 2001; Toy sales: 24.1; Injuries: 190",
  "Year: 2002; Toy sales: 22.4; Injuries: 212",
  "Year: 2003; Toy sales: 20.9; Injuries: 206",
  "Year: 2004; Toy sales: 22.1; Injuries: 210",
];
const chunks: ChunkRecord[] = rows.map((text, index) => ({
  id: chunkId("toys.csv", index),
  docId: "toys.csv",
  chunkIndex: index,
  text,
  title: "toys",
  source: "",
  ownerId: "ann@example.org",
  acl: index === 3 ? "|deny:bob@example.org|" : "",
  metadata: { rows: String(index + 2) },
  contentHash: "v1",
}));
const ann = { userName: "ann@example.org", roles: [], groups: [] };
const bob = { userName: "bob@example.org", roles: [], groups: [] };
const question = "Which year had the least toy sales?";
/** The context retrieval would give: two of the rows. */
const context = () =>
  buildContext(
    [chunks[0], chunks[1]].map((chunk) => ({ chunk: chunk as ChunkRecord, score: 1 })),
    { maxDocChars: 4000, maxContextChars: 16_000 },
  );
const documentChunks = async (docId: string, contentHash: string) => (docId === "toys.csv" && contentHash === "v1" ? chunks : []);

describe("tableEvidence", () => {
  it("answers an operation over the whole table from the rows the user may read, with the row it was computed from", async () => {
    const evidence = await rankEvidence(question, context(), { analyzer });
    const found = await tableEvidence(question, evidence.units, { principal: ann, analyzer, documentChunks });
    expect(found?.answer.text).toBe("2003");
    expect(found?.rows.map((chunk) => chunk.id)).toEqual([chunkId("toys.csv", 2)]);
  });

  it("reads only rows the principal may read", async () => {
    const evidence = await rankEvidence("Which year had the most injuries?", context(), { analyzer });
    const forAnn = await tableEvidence("Which year had the most injuries?", evidence.units, { principal: ann, analyzer, documentChunks });
    const forBob = await tableEvidence("Which year had the most injuries?", evidence.units, {
      principal: { ...bob },
      analyzer,
      documentChunks,
    });
    expect(forAnn?.answer.text).toBe("2002");
    // Bob may not read the 2004 row nor, as the owner is Ann and there is no grant, any row.
    expect(forBob).toBeUndefined();
  });

  it("gives no answer without a table row among the units", async () => {
    const prose = buildContext([{ chunk: { ...(chunks[0] as ChunkRecord), text: "Toy sales fell in 2003." }, score: 1 }], {
      maxDocChars: 4000,
      maxContextChars: 16_000,
    });
    const evidence = await rankEvidence(question, prose, { analyzer });
    expect(await tableEvidence(question, evidence.units, { principal: ann, analyzer, documentChunks })).toBeUndefined();
  });
});

describe("tableOf", () => {
  it("takes every key in order of first appearance, a missing one an empty cell", () => {
    expect(
      tableOf([
        [
          { key: "a", value: "1" },
          { key: "b", value: "2" },
        ],
        [
          { key: "a", value: "3" },
          { key: "c", value: "4" },
        ],
      ]),
    ).toEqual({
      header: ["a", "b", "c"],
      rows: [
        ["1", "2", ""],
        ["3", "", "4"],
      ],
    });
  });
});

describe("the extractive answer over a table", () => {
  it("answers with the table's explanation, citing the row it was computed from, when it is more probably right", async () => {
    const base = context();
    const withRow = buildContext(
      [...base.entries.map((entry) => ({ chunk: entry.chunk, score: entry.score })), { chunk: chunks[2] as ChunkRecord, score: 0 }],
      { maxDocChars: 4000, maxContextChars: 16_000 },
    );
    const evidence = await rankEvidence(question, withRow, { analyzer });
    const table = await tableEvidence(question, evidence.units, { principal: ann, analyzer, documentChunks });
    expect(table).toBeDefined();
    const forced = { ...(table as NonNullable<typeof table>), answer: { ...(table as NonNullable<typeof table>).answer, score: 0.99 } };
    const generated = await createExtractiveAnswerer({ analyzer }).answer({ question, context: withRow, evidence, table: forced });
    expect(generated.answer.callout_answer).toContain("2003");
    expect(generated.answer.callout_answer).toMatch(/\[Source: doc_3\]$/);
    expect(generated.answer.positive_list).toEqual(["Year: 2003; Toy sales: 20.9; Injuries: 206 [Source: doc_3]"]);
  });

  it("passes over a table answer that is not the number or date the question asks for, however probable", async () => {
    const base = buildContext(
      [chunks[0], chunks[1], chunks[2]].map((chunk) => ({ chunk: chunk as ChunkRecord, score: 1 })),
      { maxDocChars: 4000, maxContextChars: 16_000 },
    );
    const evidence = await rankEvidence(question, base, { analyzer });
    const table = await tableEvidence(question, evidence.units, { principal: ann, analyzer, documentChunks });
    const found = table as NonNullable<typeof table>;
    // A data dictionary's cell ("month") offered for "On what date…": not a date.
    const textual = {
      ...found,
      answer: { ...found.answer, text: "month", explanation: 'Header where Source = "Guardian": month', score: 0.99 },
    };
    const asked = "On what date were the toy sales counted?";
    const generated = await createExtractiveAnswerer({ analyzer }).answer({ question: asked, context: base, evidence, table: textual });
    expect(generated.answer.callout_answer).not.toContain("month");
    const dated = { ...textual, answer: { ...textual.answer, text: "2003", explanation: "Year: 2003" } };
    const withDate = await createExtractiveAnswerer({ analyzer }).answer({ question: asked, context: base, evidence, table: dated });
    expect(withDate.answer.callout_answer).toContain("Year: 2003");
  });
});
