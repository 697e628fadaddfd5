import { describe, expect, it } from "vitest";
import { answerFromTable, type Table } from "./table-operations.js";
import { formatLike, parseDateKey, parseNumber, profileColumn } from "./table-values.js";

/** A small table written for these tests (figures invented). */
const sales: Table = {
  title: "Lantern sales",
  header: ["Year", "Lantern sales (US $ millions)", "Shops"],
  rows: [
    ["2001", "12.5", "40"],
    ["2002", "14.0", "42"],
    ["2003", "9.75", "45"],
    ["2004", "16.25", "51"],
    ["2005", "15.0", "50"],
  ],
};

const medals: Table = {
  header: ["Athlete", "Nation", "Event", "Medal"],
  rows: [
    ["Ana Quintero", "Portugal", "Rowing", "Gold"],
    ["Berit Olsen", "Norway", "Sailing", "Silver"],
    ["Carla Dimas", "Portugal", "Archery", "Bronze"],
    ["Dora Valli", "Portugal", "Fencing", "Gold"],
    ["Edda Lund", "Norway", "Rowing", "Bronze"],
    ["Fumiko Sato", "Japan", "Judo", "Gold"],
  ],
};

describe("parseNumber", () => {
  it("reads separators, currencies, percentages, scale words, ordinals and notes", () => {
    expect(parseNumber("1,046")).toBe(1046);
    expect(parseNumber("139 000")).toBe(139_000);
    expect(parseNumber("$1.2 billion")).toBe(1_200_000_000);
    expect(parseNumber("£3.00")).toBe(3);
    expect(parseNumber("21.3%")).toBe(21.3);
    expect(parseNumber("5th")).toBe(5);
    expect(parseNumber("#12")).toBe(12);
    expect(parseNumber("202 (estimate)")).toBe(202);
    expect(parseNumber("3,880 days")).toBe(3880);
    expect(parseNumber("146 / 480")).toBe(146);
    expect(parseNumber("\u22125")).toBe(-5);
  });

  it("reads clock and race times as seconds", () => {
    expect(parseNumber("0:49")).toBe(49);
    expect(parseNumber("1:27:16.830")).toBeCloseTo(5236.83, 6);
    expect(parseNumber("3:06:02:29")).toBe(3 * 86_400 + 6 * 3600 + 2 * 60 + 29);
    expect(parseNumber(`5h 29' 10"`)).toBe(5 * 3600 + 29 * 60 + 10);
  });

  it("refuses cells with a second number, and text", () => {
    expect(parseNumber("W 27–20")).toBeUndefined();
    expect(parseNumber("2–0")).toBeUndefined();
    expect(parseNumber("57 years, 67 days")).toBeUndefined();
    expect(parseNumber("1935–1962")).toBeUndefined();
    expect(parseNumber("10/7/1967")).toBeUndefined();
    expect(parseNumber("Gold")).toBeUndefined();
    expect(parseNumber("")).toBeUndefined();
  });
});

describe("formatLike", () => {
  it("writes a computed number with the currency and scale of the column's cells", () => {
    expect(formatLike(1_560_000_000, "$0.84 billion")).toBe("$1.56 billion");
    expect(formatLike(4, "£1.00")).toBe("£4.00");
    expect(formatLike(68, "21")).toBe("68");
    expect(formatLike(2.345, "1.5")).toBe("2.3");
    expect(formatLike(2.5, "3")).toBe("2.5");
  });
});

describe("parseDateKey", () => {
  it("reads dates in either order, ISO and US dates, seasons and years", () => {
    expect(parseDateKey("June 14, 2010")).toBe(20_100_614);
    expect(parseDateKey("14 June 2010")).toBe(20_100_614);
    expect(parseDateKey("2010-06-14")).toBe(20_100_614);
    expect(parseDateKey("10/7/1967")).toBe(19_671_007);
    expect(parseDateKey("March 2012")).toBe(20_120_300);
    expect(parseDateKey("October 17")).toBe(1017);
    expect(parseDateKey("1939/40")).toBe(19_390_000);
    expect(parseDateKey("2012-13")).toBe(20_120_000);
    expect(parseDateKey("1977–1978")).toBe(19_770_000);
    expect(parseDateKey("1935")).toBe(19_350_000);
  });

  it("refuses numbers that are not years and text", () => {
    expect(parseDateKey("350")).toBeUndefined();
    expect(parseDateKey("Spring")).toBeUndefined();
    expect(parseDateKey("June 40, 2010")).toBeUndefined();
  });
});

describe("profileColumn", () => {
  it("types a column by most of its non-empty cells", () => {
    expect(profileColumn(["1", "2", "N/A", "4"]).kind).toBe("number");
    expect(profileColumn(["1999", "2000", "2001"]).kind).toBe("date");
    expect(profileColumn(["Gold", "Silver", "3"]).kind).toBe("text");
    expect(profileColumn(["1", "–", "3"]).empty).toEqual([false, true, false]);
  });
});

describe("answerFromTable", () => {
  it("names the cell a condition matched in its explanation, as the table writes it, not the analysed terms", () => {
    const films: Table = {
      header: ["title", "year_release", "lead_actor_actress"],
      rows: [
        ["Moneyball", "2011", "Brad Pitt"],
        ["Lincoln", "2012", "Daniel Day-Lewis"],
        ["Ray", "2004", "Jamie Foxx"],
      ],
    };
    const answer = answerFromTable("Who played the lead role in Moneyball?", films);
    expect(answer?.text).toBe("Brad Pitt");
    expect(answer?.explanation).toBe('lead_actor_actress where title = "Moneyball": Brad Pitt');
  });

  it("answers a superlative with the row's value in the column the question names (argmin, argmax)", () => {
    const least = answerFromTable("which year had the least lantern sales?", sales);
    expect(least).toMatchObject({ text: "2003", operation: "argmin", column: "Year", rows: [2] });
    expect(least?.explanation).toContain("Lantern sales (US $ millions)");
    const most = answerFromTable("which year had the highest lantern sales?", sales);
    expect(most).toMatchObject({ text: "2004", operation: "argmax", rows: [3] });
  });

  it("looks up the cell of a named row", () => {
    const answer = answerFromTable("what were the lantern sales in 2002?", sales);
    expect(answer).toMatchObject({ text: "14.0", operation: "lookup", rows: [1], restatesCondition: false });
  });

  it("reports the share of the question its plan explains: high for a question about the table, low for one about something else", () => {
    const about = answerFromTable("what were the lantern sales in 2002?", sales);
    expect(about?.explained).toBeGreaterThanOrEqual(0.6);
    // Asked of the wrong table: only the year is found in it, the rest of the question is not.
    const elsewhere = answerFromTable("how many goals did the harbour club score in 2002?", sales);
    expect(elsewhere?.explained ?? 0).toBeLessThan(0.4);
    expect(elsewhere?.explained ?? 0).toBeLessThan(about?.explained ?? 0);
  });

  it("says when a lookup only restates the cell the question named", () => {
    const carriers: Table = {
      header: ["Carrier", "Seats per week", "Incidents"],
      rows: [
        ["Air Lumenia", "320906734", "2"],
        ["Nordavia", "1197672318", "6"],
      ],
    };
    const restated = answerFromTable("what is the population of Lumenia?", carriers);
    expect(restated).toMatchObject({ text: "Air Lumenia", operation: "lookup", restatesCondition: true });
    expect(answerFromTable("how many incidents did Lumenia have?", carriers)).toMatchObject({ text: "2", restatesCondition: false });
  });

  it("counts rows that match a value or a numeric comparison", () => {
    expect(answerFromTable("how many medals did portugal win?", medals)).toMatchObject({ text: "3", operation: "count", rows: [0, 2, 3] });
    expect(answerFromTable("how many years had more than 45 shops?", sales)).toMatchObject({ text: "2", operation: "count" });
  });

  it("sums and averages a column", () => {
    expect(answerFromTable("what is the total of shops in all years?", sales)).toMatchObject({ text: "228", operation: "sum" });
    expect(answerFromTable("what were the average lantern sales?", sales)).toMatchObject({ text: "13.5", operation: "average" });
  });

  it("reads the row after or before a named one", () => {
    expect(answerFromTable("which athlete is listed after carla dimas?", medals)).toMatchObject({
      text: "Dora Valli",
      operation: "next",
      rows: [2, 3],
    });
    expect(answerFromTable("which athlete comes before carla dimas?", medals)).toMatchObject({
      text: "Berit Olsen",
      operation: "previous",
    });
  });

  it("reads the first and last rows", () => {
    expect(answerFromTable("who was the last athlete from norway?", medals)).toMatchObject({
      text: "Edda Lund",
      operation: "last",
      rows: [4],
    });
  });

  it("compares two named rows and takes their difference", () => {
    expect(answerFromTable("which year had more shops, 2002 or 2004?", sales)).toMatchObject({ text: "2004", operation: "compare" });
    expect(answerFromTable("what is the difference in shops between 2001 and 2005?", sales)).toMatchObject({
      text: "10",
      operation: "difference",
      rows: [0, 4],
    });
  });

  it("finds the most frequent value", () => {
    expect(answerFromTable("which nation appears the most?", medals)).toMatchObject({ text: "Portugal", operation: "mode" });
  });

  it("gives a score in [0, 1]", () => {
    const answer = answerFromTable("which year had the least lantern sales?", sales);
    expect(answer?.score).toBeGreaterThan(0);
    expect(answer?.score).toBeLessThan(1);
  });

  it("does not answer when the question names no column or condition of the table", () => {
    expect(answerFromTable("what is the capital of france?", sales)).toBeUndefined();
    expect(answerFromTable("how tall is the lighthouse?", medals)).toBeUndefined();
    expect(answerFromTable("which year had the least lantern sales?", { header: ["Year"], rows: [] })).toBeUndefined();
  });

  it("reads dates, decades, empty cells and slices of rows from the question", () => {
    const matches: Table = {
      header: ["Date", "Opponent", "Goals", "Scorer"],
      rows: [
        ["3 September 1983", "Harbour Town", "2", "Ines Moreau"],
        ["17 September 1983", "Lakeside", "0", ""],
        ["1 October 1984", "Hillcrest", "3", "Ana Ruiz"],
        ["22 October 1984", "Riverside", "1", "Ines Moreau"],
        ["5 March 1991", "Old Bridge", "4", "Tove Berg"],
      ],
    };
    expect(answerFromTable("who was the opponent on september 17, 1983?", matches)).toMatchObject({
      text: "Lakeside",
      operation: "lookup",
      rows: [1],
    });
    expect(answerFromTable("how many games were played in the 1980s?", matches)).toMatchObject({ text: "4", operation: "count" });
    expect(answerFromTable("which opponent had no scorer?", matches)).toMatchObject({ text: "Lakeside", rows: [1] });
    expect(answerFromTable("what is the sum of goals in the last 3 games?", matches)).toMatchObject({ text: "8", operation: "sum" });
  });

  it("leaves summary rows out of operations over rows", () => {
    const withTotal: Table = { header: sales.header, rows: [...sales.rows, ["Total", "67.5", "228"]] };
    expect(answerFromTable("which year had the highest lantern sales?", withTotal)).toMatchObject({ text: "2004" });
  });
});
