import { describe, expect, it } from "vitest";
import { relatedForms } from "./related-forms.js";

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
