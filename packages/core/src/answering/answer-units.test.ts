import { describe, expect, it } from "vitest";
import { type ChunkRecord, chunkId } from "../stores/chunk-record.js";
import { answerUnits, parseBlocks, unitsOfEntry } from "./answer-units.js";
import { buildContext, type ContextEntry } from "./build-context.js";

function entry(text: string, title = "doc", metadata: Record<string, unknown> = {}): ContextEntry {
  const chunk: ChunkRecord = {
    id: chunkId(title, 0),
    docId: title,
    chunkIndex: 0,
    text,
    title,
    source: "",
    ownerId: "",
    acl: "",
    metadata,
    contentHash: title,
  };
  return { key: "doc_1", chunk, text, score: 1 };
}

describe("answer units", () => {
  it("reads a table row as cells under their column names, a value holding a colon kept whole", () => {
    const units = unitsOfEntry(entry("Film: Mad Max: Fury Road (2015); RottenTomatoes: 97; Year: 2015", "films"), 0);
    expect(units.map((unit) => [unit.kind, unit.cell?.key, unit.cell?.value])).toEqual([
      ["cell", "Film", "Mad Max: Fury Road (2015)"],
      ["cell", "RottenTomatoes", "97"],
      ["cell", "Year", "2015"],
    ]);
    expect(units[1]?.row?.tableRow).toBe(true);
    expect(units[1]?.row?.cells).toHaveLength(3);
  });

  it("reads a row a loader rendered under column names of any length, and such a line in prose as a sentence", () => {
    const line =
      "Region: North; Share of households that recycled glass in the last twelve months: 61; Average monthly waste collection fee per household ($): 14.20";
    const rendered = unitsOfEntry(entry(line, "waste.csv", { rows: "7" }), 0);
    expect(rendered.map((unit) => [unit.kind, unit.cell?.key, unit.cell?.value])).toEqual([
      ["cell", "Region", "North"],
      ["cell", "Share of households that recycled glass in the last twelve months", "61"],
      ["cell", "Average monthly waste collection fee per household ($)", "14.20"],
    ]);
    // Outside a table's rows, a long "key" is a sentence's opening clause.
    expect(unitsOfEntry(entry(line, "notes.txt"), 0).every((unit) => unit.kind !== "cell" || unit.cell?.key === "Region")).toBe(true);
  });

  it("reads a record of key: value lines as one row named by its document's title", () => {
    const units = unitsOfEntry(entry("name: Tin\nsymbol: Sn\ndiscoverer: unknown", "Tin (metals)"), 0);
    expect(units.every((unit) => unit.kind === "cell")).toBe(true);
    expect(units[0]?.row?.name).toBe("Tin");
    expect(units[0]?.row).toBe(units[2]?.row);
  });

  it("mends a word that a PDF line break hyphenated, and keeps a reference mark with its sentence", () => {
    const units = unitsOfEntry(
      entry("Our dense retriever outperforms a strong Lucene-\nBM25 system by 9%-19% in terms of ef-\nficiency.[12] It is simple."),
      0,
    );
    expect(units.map((unit) => unit.text)).toEqual([
      "Our dense retriever outperforms a strong Lucene-BM25 system by 9%-19% in terms of efficiency.[12]",
      "It is simple.",
    ]);
  });

  it("keeps a labelled line inside prose a sentence", () => {
    const units = unitsOfEntry(
      entry("The badge office opens at eight.\nNote: bring a photo ID when you collect the badge.\nIt closes at noon on Fridays."),
      0,
    );
    expect(units.every((unit) => unit.kind === "sentence")).toBe(true);
    expect(units.map((unit) => unit.text)).toContain("Note: bring a photo ID when you collect the badge.");
  });

  it("makes a fenced code block a command with its lead-in and heading", () => {
    const text =
      "## Resetting the cache\n\nTo clear the cache, run the following:\n\n```console\n$ acme cache clear --all\n```\n\nIt takes a minute.";
    const units = unitsOfEntry(entry(text), 0);
    const command = units.find((unit) => unit.kind === "command");
    expect(command).toMatchObject({
      text: "$ acme cache clear --all",
      leadIn: "To clear the cache, run the following:",
      heading: "Resetting the cache",
    });
    expect(units[0]).toMatchObject({ kind: "heading", text: "Resetting the cache" });
  });

  it("makes a fenced block that is no shell session code, not a command", () => {
    const units = unitsOfEntry(entry("If it worked, this appears:\n\n```text\nInstalled. Great!\n```"), 0);
    expect(units.map((unit) => unit.kind)).toEqual(["sentence", "code"]);
  });

  it("makes a prompt line a command", () => {
    const units = unitsOfEntry(entry("Update the tool:\n$ acme self-update"), 0);
    expect(units.map((unit) => unit.kind)).toEqual(["sentence", "command"]);
  });

  it("reads a Markdown pipe table's rows under its header", () => {
    const units = unitsOfEntry(entry("| Setting | Default |\n|---|---|\n| MAX_USERS | 50 |\n| TIMEOUT | 30 s |"), 0);
    expect(units.map((unit) => unit.text)).toEqual(["Setting: MAX_USERS", "Default: 50", "Setting: TIMEOUT", "Default: 30 s"]);
  });

  it("joins hard-wrapped lines of a paragraph before splitting sentences", () => {
    const text =
      "The shipment of blankets, water and tents reached the northern depot on January 23,\n2023. A total of 3 trucks were used for the last leg of the long trip.";
    const sentences = unitsOfEntry(entry(text), 0).map((unit) => unit.text);
    expect(sentences).toEqual([
      "The shipment of blankets, water and tents reached the northern depot on January 23, 2023.",
      "A total of 3 trucks were used for the last leg of the long trip.",
    ]);
  });

  it("ends a paragraph at a short line, so infobox fields are not one long sentence", () => {
    const text =
      "Personal information\nFull name Ann Example\nDate of birth 2 May 1970\nAnn Example is a retired engineer who designed bridges for the northern railway\ncompany for thirty years and wrote two books about it.";
    const blocks = parseBlocks(text);
    expect(blocks.map((block) => (block.type === "prose" || block.type === "heading" ? block.text : block.type))).toEqual([
      "Personal information",
      "Full name Ann Example",
      "Date of birth 2 May 1970",
      "Ann Example is a retired engineer who designed bridges for the northern railway company for thirty years and wrote two books about it.",
    ]);
  });

  it("never glues a heading in capitals to the sentence under it", () => {
    const units = unitsOfEntry(entry("ROLE OF THE REGIONAL OFFICE\nThe regional office reviews every claim within ten days."), 0);
    expect(units.map((unit) => [unit.kind, unit.text])).toEqual([
      ["heading", "ROLE OF THE REGIONAL OFFICE"],
      ["sentence", "The regional office reviews every claim within ten days."],
    ]);
    expect(units[1]?.heading).toBe("ROLE OF THE REGIONAL OFFICE");
  });

  it("counts a heading's words, not its numbers and dashes", () => {
    const units = unitsOfEntry(
      entry(
        "PART 4 – REVIEW, APPROVAL AND PAYMENT OF THE CLAIMS OF THE REGIONAL OFFICE\nA. SCOPE\nThe regional office reviews every claim.",
      ),
      0,
    );
    expect(units.map((unit) => unit.kind)).toEqual(["heading", "heading", "sentence"]);
  });

  it("splits a run-in heading in capitals from its paragraph", () => {
    const units = unitsOfEntry(entry("LATE CLAIMS The regional office rejects a claim filed after the deadline."), 0);
    expect(units.map((unit) => [unit.kind, unit.text])).toEqual([
      ["heading", "LATE CLAIMS"],
      ["sentence", "The regional office rejects a claim filed after the deadline."],
    ]);
    // One word in capitals is an acronym, not a heading.
    expect(unitsOfEntry(entry("NASA The agency launched it."), 0).map((unit) => unit.kind)).toEqual(["sentence"]);
  });

  it("reads a FAQ's question line, emphasis stripped, as the heading of its answer", () => {
    const units = unitsOfEntry(
      entry(
        "**How long is a reset link valid?**\nThe link expires after 30 minutes. Request a new one after that.\n\nWhy? Because links leak.",
      ),
      0,
    );
    expect(units.map((unit) => [unit.kind, unit.text])).toEqual([
      ["heading", "How long is a reset link valid?"],
      ["sentence", "The link expires after 30 minutes."],
      ["sentence", "Request a new one after that."],
      ["sentence", "Why?"],
      ["sentence", "Because links leak."],
    ]);
    expect(units[1]?.heading).toBe("How long is a reset link valid?");
  });

  it("gives each unit its context entry and rank", () => {
    const context = buildContext(
      [
        { chunk: entry("First chunk. Second sentence.", "a").chunk, score: 1 },
        { chunk: entry("Other chunk.", "b").chunk, score: 0.5 },
      ],
      { maxDocChars: 1000, maxContextChars: 10_000 },
    );
    expect(answerUnits(context).map((unit) => [unit.entry.key, unit.rank, unit.position])).toEqual([
      ["doc_1", 0, 0],
      ["doc_1", 0, 1],
      ["doc_2", 1, 0],
    ]);
  });
});
