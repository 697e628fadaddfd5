import { describe, expect, it } from "vitest";
import { findPdfTables, type PositionedText } from "./pdf-tables.js";

/** Pieces of one line at baseline `y`: each `[x, text]` with a width of 5 units per character, font size 10. */
function line(y: number, ...cells: [number, string][]): PositionedText[] {
  return cells.map(([x, text]) => ({ text, x, y, width: text.length * 5, height: 10 }));
}

describe("findPdfTables", () => {
  it("reads a table set in columns: header, rows, caption, and the pieces it was read from", () => {
    const pieces = [
      ...line(700, [50, "Our shop sells garden tools and seeds to local growers."]),
      ...line(680, [50, "Table 2 Prices of garden tools"]),
      ...line(660, [50, "Tool"], [200, "Price"], [300, "Stock"]),
      ...line(648, [50, "Watering can"], [200, "18.00"], [300, "12"]),
      ...line(636, [50, "Rake"], [200, "24.50"], [300, "3"]),
      ...line(624, [50, "Trowel"], [200, "7.25"], [300, "40"]),
      ...line(590, [50, "Prices include tax and are valid until the end of the season."]),
    ];
    const [table, ...others] = findPdfTables(pieces);
    expect(others).toEqual([]);
    expect(table?.caption).toBe("Table 2 Prices of garden tools");
    expect(table?.header).toEqual(["Tool", "Price", "Stock"]);
    expect(table?.rows).toEqual([
      ["Watering can", "18.00", "12"],
      ["Rake", "24.50", "3"],
      ["Trowel", "7.25", "40"],
    ]);
    // The prose above and below stays in the page's running text.
    expect([...(table?.pieces ?? [])].sort((left, right) => left - right)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
  });

  it("joins a header cell wrapped onto two lines, a superscript on its line and a cell wrapped onto the next line", () => {
    const pieces = [
      ...line(660, [50, "Sample"], [200, "Area (cm"]),
      { text: "2", x: 240, y: 663, width: 3, height: 6 },
      { text: ")", x: 243, y: 660, width: 3, height: 10 },
      ...line(660, [300, "Loss"]),
      ...line(650, [300, "rate (mm/year)"]),
      ...line(630, [50, "A"], [200, "1.5"], [300, "0.20"]),
      ...line(618, [50, "B"], [200, "2.5"], [300, "0.35 after the"]),
      ...line(606, [300, "first week"]),
      ...line(594, [50, "C"], [200, "3.0"], [300, "0.41"]),
    ];
    const [table] = findPdfTables(pieces);
    expect(table?.header).toEqual(["Sample", "Area (cm2)", "Loss rate (mm/year)"]);
    expect(table?.rows).toEqual([
      ["A", "1.5", "0.20"],
      ["B", "2.5", "0.35 after the first week"],
      ["C", "3.0", "0.41"],
    ]);
  });

  it("finds no table in prose set in two or three columns, nor in a two-column bulleted list", () => {
    const prose = [700, 688, 676, 664].flatMap((y) =>
      line(
        y,
        [50, "the committee met on a regular basis to"],
        [250, "discuss the budget of the coming year"],
        [450, "and the plans of every department"],
      ),
    );
    expect(findPdfTables(prose)).toEqual([]);
    const list = [700, 688, 676, 664].flatMap((y) => line(y, [50, "•"], [60, "Product types"], [250, "•"], [260, "Design teams"]));
    expect(findPdfTables(list)).toEqual([]);
  });

  it("leaves out a column whose pieces form another flow of text (the next column of prose beside a table)", () => {
    const table = [700, 688, 676, 664].flatMap((y, row) => line(y, [50, `Item ${row}`], [120, `${row * 3}`], [180, `${row * 7}`]));
    const prose = [700, 688, 676, 664].flatMap((y) => line(y, [320, "the next column of the page goes on"]));
    const [found] = findPdfTables([...table, ...prose]);
    expect(found?.header).toEqual(["Item 0", "0", "0"]);
    expect(found?.rows).toHaveLength(3);
    expect([...(found?.pieces ?? [])].every((index) => index < table.length)).toBe(true);
  });
});
