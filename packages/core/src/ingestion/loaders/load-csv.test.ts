import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isContinuousIntegration, sharedDataPath } from "../../testing/shared-data.js";
import { loadCsv } from "./load-csv.js";

const limits = { maxFileBytes: 10_000_000, maxExtractedChars: 10_000_000 };
const csv = (name: string, text: string) => ({ name, bytes: new TextEncoder().encode(text) });
/** The rows of a loaded file, one line each (each row is a section of its own). */
const rowsOf = (loaded: Awaited<ReturnType<typeof loadCsv>>) =>
  (loaded.documents[0]?.sections ?? []).map((section) => section.text).join("\n");

describe("loadCsv", () => {
  it("renders every row with its column names, each row a section (one chunk) numbered as in the file", async () => {
    const rows = Array.from({ length: 3 }, (_, index) => `row${index};${index * 10};"x, y"`);
    const loaded = await loadCsv(csv("t.csv", `name;value;note\n${rows.join("\n")}\n`), limits);
    expect(loaded.documents[0]?.sections).toEqual([
      { text: "name: row0; value: 0; note: x, y", metadata: { rows: "2" }, preChunked: true },
      { text: "name: row1; value: 10; note: x, y", metadata: { rows: "3" }, preChunked: true },
      { text: "name: row2; value: 20; note: x, y", metadata: { rows: "4" }, preChunked: true },
    ]);
    expect(loaded.documents[0]?.metadata).toEqual({ encoding: "utf-8", columns: 3, rows: 3, delimiter: ";" });
    expect(loaded.warnings).toEqual([]);
  });

  it("reads a title row above the header (a caption filling one cell) as the table's caption, not its header", async () => {
    const loaded = await loadCsv(csv("cups.csv", "Trophies won,,\nTeam,City,Trophies\nOwls,Oxford,4\nHawks,Hull,11\n"), limits);
    expect(loaded.documents[0]?.sections).toEqual([
      { text: "Team: Owls; City: Oxford; Trophies: 4", metadata: { rows: "3" }, preChunked: true },
      { text: "Team: Hawks; City: Hull; Trophies: 11", metadata: { rows: "4" }, preChunked: true },
    ]);
    expect(loaded.documents[0]).toMatchObject({ title: "cups: Trophies won", metadata: { columns: 3, rows: 2, caption: "Trophies won" } });
    const unnamed = await loadCsv(csv("plain.csv", "id,,\n1,a,b\n2,c,d\n"), limits);
    expect(unnamed.documents[0]?.title).toBe("plain: id");
    const headed = await loadCsv(csv("pairs.csv", "key,value\na,\nb,2\n"), limits);
    expect(rowsOf(headed)).toBe("key: a\nkey: b; value: 2");
  });

  it("leaves out empty cells, names unnamed columns by position and keeps a quoted multi-line cell on its row's line", async () => {
    const loaded = await loadCsv(
      csv("films.csv", 'Film,RottenTomatoes,\nAvengers: Age of Ultron (2015),74,\n"Ant-Man (2015)",,"a\nsequel"\n'),
      limits,
    );
    expect(rowsOf(loaded)).toBe("Film: Avengers: Age of Ultron (2015); RottenTomatoes: 74\nFilm: Ant-Man (2015); Column 3: a sequel");
  });

  it("accepts a one-column CSV whose header cell holds a quoted comma, even when its values hold semicolons", async () => {
    const plain = await loadCsv(csv("names.csv", '"Name, full"\nAnn Lee\n"Lee, Bob"\n'), limits);
    expect(rowsOf(plain)).toBe("Name, full: Ann Lee\nName, full: Lee, Bob");
    expect(plain.documents[0]?.metadata).toMatchObject({ columns: 1, rows: 2, delimiter: "," });
    const addresses = ["Main St 1; Springfield; IL", "Elm St 2; Shelbyville; IL", "Oak St 3; Ogdenville; IL"];
    const loaded = await loadCsv(csv("addresses.csv", `"Address, full"\n${addresses.join("\n")}\n`), limits);
    expect(rowsOf(loaded)).toBe(addresses.map((address) => `Address, full: ${address}`).join("\n"));
    expect(loaded.documents[0]?.metadata).toMatchObject({ columns: 1, rows: 3, delimiter: "," });
  });

  it("still rejects ragged rows when another delimiter would only hide them", async () => {
    await expect(loadCsv(csv("ragged.csv", "a,b,c\n1,2,3\n4,5\n6,7,8,9\n"), limits)).rejects.toMatchObject({
      code: "csv_ragged_rows",
      message: expect.stringContaining("2 row(s) have a different number of fields than the header's 3 (rows 3, 4)"),
    });
  });

  it("keeps the complete rows of a file cut inside a quoted field, with a warning naming the line", async () => {
    const loaded = await loadCsv(csv("cut.csv", 'a,b,c\n1,2,3\n4,"five\nand more",6\n7,"8\nx'), limits);
    expect(rowsOf(loaded)).toBe("a: 1; b: 2; c: 3\na: 4; b: five and more; c: 6");
    expect(loaded.documents[0]?.sections.map((section) => section.metadata.rows)).toEqual(["2", "3"]);
    expect(loaded.documents[0]?.metadata).toMatchObject({ rows: 2 });
    expect(loaded.warnings).toEqual([
      "cut.csv stops at line 5 (truncated file: a quote opened on line 5 is never closed); kept the 2 complete row(s) before it and dropped the rest",
    ]);
  });

  it("drops a short last row of a file that does not end with a line break, and rejects the same row when the line is complete", async () => {
    const loaded = await loadCsv(csv("cut.csv", "a,b,c\n1,2,3\n\n4,5,6\n7,8"), limits);
    expect(rowsOf(loaded)).toBe("a: 1; b: 2; c: 3\na: 4; b: 5; c: 6");
    expect(loaded.warnings).toEqual([
      "cut.csv stops at line 5 (truncated file: its last row (line 5) is cut short); kept the 2 complete row(s) before it and dropped the rest",
    ]);
    await expect(loadCsv(csv("short.csv", "a,b,c\n1,2,3\n7,8\n"), limits)).rejects.toMatchObject({ code: "csv_ragged_rows" });
  });

  it("rejects a file whose first data row opens a quote that is never closed, and a malformed quote inside the file", async () => {
    await expect(loadCsv(csv("quote.csv", 'a,b\n1,"open\n2,3\n'), limits)).rejects.toMatchObject({
      code: "corrupt_file",
      message: expect.stringContaining("a quote opened on line 2 is never closed, and no complete data row comes before it"),
    });
    await expect(loadCsv(csv("bad.csv", 'a,b\n1,"x"y,"z"\n3,4\n'), limits)).rejects.toMatchObject({ code: "corrupt_file" });
  });

  it("renders a header-only file as its column names", async () => {
    const loaded = await loadCsv(csv("header.csv", "a;b\n"), limits);
    expect(loaded.documents[0]?.sections).toEqual([{ text: "Columns: a; b", metadata: { rows: "1" }, preChunked: true }]);
  });
});

const csvDirectory = sharedDataPath("documents", "csv");

describe.skipIf(!csvDirectory && !isContinuousIntegration())("loadCsv on ../shared/data/documents/csv", () => {
  const read = (name: string) => ({ name, bytes: readFileSync(join(csvDirectory as string, name)) });

  it("keeps the 8,149 complete rows of the Marvel file cut inside a quoted field", async () => {
    const loaded = await loadCsv(read("malformed-truncated-marvel-open-quote.csv"), limits);
    expect(loaded.documents[0]?.metadata).toMatchObject({ columns: 13, rows: 8149 });
    expect(loaded.warnings).toEqual([
      "malformed-truncated-marvel-open-quote.csv stops at line 8151 (truncated file: a quote opened on line 8151 is never closed); kept the 8149 complete row(s) before it and dropped the rest",
    ]);
    const last = loaded.documents[0]?.sections.at(-1);
    expect(last?.text.split("\n").at(-1)).toBe(
      "page_id: 725499; name: Carmine Karnelli (Earth-616); urlslug: \\/Carmine_Karnelli_(Earth-616); ID: Public Identity; ALIGN: Bad Characters; EYE: Brown Eyes; HAIR: Black Hair; SEX: Male Characters; ALIVE: Deceased Characters; APPEARANCES: 3; FIRST APPEARANCE: Mar-08; Year: 2008",
    );
    expect(last?.metadata.rows).toBe("8150");
  });

  it("reads the semicolon, UTF-16 and quoted-comma files with their column names", async () => {
    const semicolon = await loadCsv(read("semicolon-delimited.csv"), limits);
    expect(rowsOf(semicolon).split("\n")[0]).toBe("Lorem, ipsum: consectetur; dolor sit: adipiscing; amet: elit");
    const utf16 = await loadCsv(read("stanley-cups-utf16.csv"), limits);
    // Its first row is a caption ("Stanley Cups,,") above the header.
    expect(utf16.documents[0]?.metadata).toMatchObject({ encoding: "utf-16be", columns: 3, rows: 3, caption: "Stanley Cups" });
    expect(rowsOf(utf16).split("\n")[0]).toBe("Team: Blues; Location: STL; Stanley Cups: 1");
    const commas = await loadCsv(read("escaped-commas.csv"), limits);
    expect(rowsOf(commas)).toBe("A: A; A: A; A: A; A: A,A; A: A\nA: A; A: A; A: A; A: A,A; A: A");
  });
});
