import { describe, expect, it } from "vitest";
import { createEnglishAnalyzer } from "../text/analyzer.js";
import { keyTermsOf, keyWords, keyYears } from "./record-keys.js";

describe("keyYears", () => {
  it("reads standalone two-digit numbers of a key by the POSIX %y pivot, and nothing else", () => {
    expect(keyYears("fatalities 00 14")).toEqual(["2000", "2014"]);
    expect(keyYears("incidents 85 99")).toEqual(["1985", "1999"]);
    expect(keyYears("sales 68 69")).toEqual(["2068", "1969"]);
    expect(keyYears("top 100 q3 fy19 2014")).toEqual([]);
  });
});

describe("keyWords", () => {
  it("splits column names at underscores, dots, dashes and changes of case", () => {
    expect(keyWords("RottenTomatoes")).toBe("Rotten Tomatoes");
    expect(keyWords("wine_servings")).toBe("wine servings");
    expect(keyWords("person.birthDate")).toBe("person birth Date");
    expect(keyWords("HTTPServer")).toBe("HTTP Server");
  });
});

describe("keyTermsOf", () => {
  const analyzer = createEnglishAnalyzer();
  const analyze = (text: string) => analyzer.analyze(text);
  const termsOf = (question: string) => [...new Set(analyze(question))].map((term) => ({ term, word: term, weight: 1 }));
  it("reads a key word written without separators as the two question words it joins", () => {
    const question = termsOf("What is the win percentage of Fudge Ripple?");
    const terms = keyTermsOf("winpercent", question, analyze);
    expect(terms.has("win") && terms.has("percentag")).toBe(true);
    expect(keyTermsOf("sugarpercent", question, analyze).has("win")).toBe(false);
  });
  it("splits no word where the question names only one of its parts", () => {
    const question = termsOf("What date is the candidate's interview?");
    expect(keyTermsOf("candidate", question, analyze).has("date")).toBe(false);
  });
});
