import { describe, expect, it } from "vitest";
import { countMarkedLists, joinList, rewriteMarkedLists, withoutMarkedLists } from "./marked-lists.js";

describe("marked lists", () => {
  it("joins items with commas, the last after the conjunction", () => {
    expect([joinList(["a", "b", "c"]), joinList(["a", "b", "c"], "or"), joinList(["a"], "and"), joinList([], "and")]).toEqual([
      "a, b, c",
      "a, b or c",
      "a",
      "",
    ]);
  });

  it("rewrites only the lists of its mark, passing each its style and conjunction", () => {
    const markdown =
      "A <!-- fruit:sweet and -->old<!-- /fruit --> B <!-- veg:green -->kept<!-- /veg --> C <!-- fruit:sour -->x<!-- /fruit -->";
    const calls: string[] = [];
    const rewritten = rewriteMarkedLists(markdown, "fruit", (style, conjunction) => {
      calls.push(`${style}/${conjunction ?? "-"}`);
      return style.toUpperCase();
    });
    expect(rewritten).toBe(
      "A <!-- fruit:sweet and -->SWEET<!-- /fruit --> B <!-- veg:green -->kept<!-- /veg --> C <!-- fruit:sour -->SOUR<!-- /fruit -->",
    );
    expect(calls).toEqual(["sweet/and", "sour/-"]);
    expect([countMarkedLists(markdown, "fruit"), countMarkedLists(markdown, "veg"), countMarkedLists(markdown, "nuts")]).toEqual([2, 1, 0]);
    expect(withoutMarkedLists(markdown, "fruit")).toBe("A  B <!-- veg:green -->kept<!-- /veg --> C ");
  });
});
