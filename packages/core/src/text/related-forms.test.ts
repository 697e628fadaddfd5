import { describe, expect, it } from "vitest";
import { relatedForms, relatedWords } from "./related-forms.js";

describe("relatedForms", () => {
  it("relates an irregular inflection to its base and to the nouns derived from it", () => {
    expect(relatedForms("born")).toEqual(expect.arrayContaining(["bear", "birth"]));
    expect(relatedForms("won")).toContain("win");
    expect(relatedForms("die")).toContain("death");
    expect(relatedForms("marry")).toContain("marriage");
  });

  it("leaves out what stemming already joins, and words WordNet relates to nothing", () => {
    expect(relatedForms("locate")).not.toContain("location");
    expect(relatedForms("parrot")).toEqual([]);
    expect(relatedForms("constructor")).toEqual([]);
  });
});

describe("relatedWords", () => {
  it("adds pertainyms both ways and first-sense noun synonyms to the related forms", () => {
    expect(relatedWords("presidential")).toContain("president");
    expect(relatedWords("french")).toContain("france");
    expect(relatedWords("france")).toContain("french");
    expect(relatedWords("cost")).toContain("price");
    expect(relatedWords("price")).toContain("cost");
    expect(relatedWords("born")).toEqual(expect.arrayContaining(["bear", "birth"]));
  });

  it("reads a regular inflection as its base, by WordNet's rules of detachment", () => {
    expect(relatedWords("costs")).toContain("price");
    expect(relatedWords("salaries")).toContain("wage");
    expect(relatedWords("costs")).not.toContain("costs");
  });

  it("is empty for words WordNet relates to nothing", () => {
    expect(relatedWords("parrot")).toEqual([]);
    expect(relatedWords("ibuprofen")).toEqual([]);
  });
});
