import { describe, expect, it } from "vitest";
import {
  containsAllItems,
  containsAnyItem,
  itemInText,
  numbersIn,
  numericValue,
  tableExactMatch,
  tableTokenF1,
} from "./table-answer-metrics.js";

describe("table answer metrics", () => {
  it("reads an item that is a number alone, with thousands separators, a currency sign or a percent sign", () => {
    expect(numericValue("1,200")).toBe(1200);
    expect(numericValue(" 1200 ")).toBe(1200);
    expect(numericValue("$3.5")).toBe(3.5);
    expect(numericValue("48.4%")).toBe(48.4);
    expect(numericValue("-7")).toBe(-7);
    expect(numericValue("17 years")).toBeNull();
    expect(numericValue("2004-05")).toBeNull();
    expect(numericValue("12,00")).toBeNull();
  });

  it("finds whole numbers in a text, by value", () => {
    expect(numbersIn("Attendance: 1,200; capacity 1500.5 and A380 or 3rd")).toEqual([1200, 1500.5]);
    expect(numbersIn("scores 10,20,30")).toEqual([10, 20, 30]);
    expect(numbersIn("the 2004-05 season")).toEqual([2004]);
  });

  it("matches an item by normalised containment or by numeric value", () => {
    expect(itemInText("Attendance: 1200 [Source: doc_1]", "1,200")).toBe(true);
    expect(itemInText("Attendance: 1,200", "1200")).toBe(true);
    expect(itemInText("Attendance: 12,000", "1200")).toBe(false);
    expect(itemInText("It took 17 years.", "17 years")).toBe(true);
    expect(itemInText("It took 17 months.", "17 years")).toBe(false);
    expect(itemInText("Winner: the Japan (JPN) team", "Japan (JPN)")).toBe(true);
    expect(itemInText("Score 2.0", "2")).toBe(true);
    expect(itemInText("in 2004", "2")).toBe(false);
  });

  it("needs every item of a list answer in the callout; a part is enough for a cited row", () => {
    expect(containsAllItems("Chile and Ecuador", ["Chile", "Ecuador"])).toBe(true);
    expect(containsAllItems("Chile only", ["Chile", "Ecuador"])).toBe(false);
    expect(containsAllItems("anything", [])).toBe(false);
    expect(containsAnyItem("Country: Chile; points: 3", ["Chile", "Ecuador"])).toBe(true);
    expect(containsAnyItem("Country: Peru", ["Chile", "Ecuador"])).toBe(false);
  });

  it("scores exact match and token F1 against the items joined", () => {
    expect(tableExactMatch("Chile Ecuador", ["Chile", "Ecuador"])).toBe(1);
    expect(tableExactMatch("Chile", ["Chile", "Ecuador"])).toBe(0);
    // prediction "country chile" (2 tokens) against "chile ecuador" (2): P 1/2, R 1/2, F1 1/2.
    expect(tableTokenF1("Country: Chile", ["Chile", "Ecuador"])).toBeCloseTo(0.5, 12);
    expect(tableTokenF1("", ["Chile"])).toBe(0);
  });
});
