import { describe, expect, it } from "vitest";
import { normalizeAccessName, normalizePrincipal } from "./principal.js";

describe("normalizeAccessName", () => {
  it.each([
    ["zero-width space U+200B", "bob\u200B@x.org"],
    ["zero-width joiner U+200D", "b\u200Dob@x.org"],
    ["soft hyphen U+00AD", "bo\u00ADb@x.org"],
    ["word joiner U+2060", "bob\u2060@x.org"],
    ["byte order mark U+FEFF", "\uFEFFbob@x.org"],
    ["variation selector U+FE0F", "bob\uFE0F@x.org"],
    ["fullwidth letters", "ｂｏｂ@ｘ.ｏｒｇ"],
    ["upper case and surrounding space", "  BOB@X.ORG "],
  ])("makes a name with a %s equal to the plain one", (_, name) => {
    expect(normalizeAccessName(name)).toBe("bob@x.org");
  });

  it("keeps names a reader can tell apart distinct", () => {
    expect(normalizeAccessName("bob@x.org")).not.toBe(normalizeAccessName("b0b@x.org"));
    expect(normalizeAccessName("straße@x.org")).toBe("straße@x.org");
  });

  it("is idempotent", () => {
    for (const name of ["İstanbul@x.org", "ǅemal@x.org", "ﬁle@x.org", "Ω@x.org"]) {
      const once = normalizeAccessName(name);
      expect(normalizeAccessName(once)).toBe(once);
    }
  });
});

describe("normalizePrincipal", () => {
  it("normalises the user name, roles and groups and drops empty and repeated ones", () => {
    expect(normalizePrincipal({ userName: "Ann\u200B@X.org", roles: ["HR", "ｈｒ", "\u200B"], groups: ["Eng\u00AD", "eng"] })).toEqual({
      userName: "ann@x.org",
      realName: undefined,
      roles: ["hr"],
      groups: ["eng"],
    });
  });
});
