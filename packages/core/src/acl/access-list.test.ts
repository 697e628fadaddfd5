import { describe, expect, it } from "vitest";
import { type AccessList, everyoneEntry, formatAccessList, normalizeAccessList, parseAccessList } from "./access-list.js";

/** Sorted plain arrays of a parsed ACL, so assertions compare whole values. */
function plain(accessList: AccessList) {
  return {
    everyone: accessList.everyone,
    users: [...accessList.users].sort(),
    roles: [...accessList.roles].sort(),
    groups: [...accessList.groups].sort(),
    denied: [...accessList.denied].sort(),
  };
}

const empty = { everyone: false, users: [], roles: [], groups: [], denied: [] };

describe("parseAccessList", () => {
  it("parses each kind of entry", () => {
    expect(plain(parseAccessList("|user:ann@x.org|role:hr|group:eng|deny:bob@x.org|"))).toEqual({
      everyone: false,
      users: ["ann@x.org"],
      roles: ["hr"],
      groups: ["eng"],
      denied: ["bob@x.org"],
    });
  });

  it("lower-cases kinds and values", () => {
    expect(plain(parseAccessList("|USER:Ann@X.org|Role:HR|GROUP:Eng|DeNy:BOB@x.ORG|"))).toEqual({
      everyone: false,
      users: ["ann@x.org"],
      roles: ["hr"],
      groups: ["eng"],
      denied: ["bob@x.org"],
    });
  });

  it("accepts a list without surrounding pipes", () => {
    expect(plain(parseAccessList("user:ann@x.org|role:hr"))).toEqual({ ...empty, users: ["ann@x.org"], roles: ["hr"] });
  });

  it("accepts a single entry with no pipes at all", () => {
    expect(plain(parseAccessList("group:eng"))).toEqual({ ...empty, groups: ["eng"] });
  });

  it("trims whitespace around entries, kinds and values", () => {
    expect(plain(parseAccessList("  | user : ann@x.org |\trole:hr  |  group:  eng |  "))).toEqual({
      ...empty,
      users: ["ann@x.org"],
      roles: ["hr"],
      groups: ["eng"],
    });
  });

  it("ignores entries of an unknown kind and entries without a kind", () => {
    expect(plain(parseAccessList("|team:red|owner:ann@x.org|:hr|justtext|role:hr|"))).toEqual({ ...empty, roles: ["hr"] });
  });

  it("ignores entries with an empty value and empty entries", () => {
    expect(plain(parseAccessList("||user:|role:   |deny:||group:eng|"))).toEqual({ ...empty, groups: ["eng"] });
  });

  it("keeps everything after the first colon as the value", () => {
    expect(plain(parseAccessList("|group:dept:finance|"))).toEqual({ ...empty, groups: ["dept:finance"] });
  });

  it("turns user:_all_ into the everyone flag, not a user", () => {
    expect(everyoneEntry).toBe("_all_");
    expect(plain(parseAccessList("|user:_all_|"))).toEqual({ ...empty, everyone: true });
    expect(plain(parseAccessList("|USER:_ALL_|user:ann@x.org|"))).toEqual({ ...empty, everyone: true, users: ["ann@x.org"] });
  });

  it("does not treat _all_ under another kind as everyone", () => {
    expect(plain(parseAccessList("|role:_all_|group:_all_|"))).toEqual({ ...empty, roles: ["_all_"], groups: ["_all_"] });
  });

  it.each([
    ["undefined", undefined],
    ["null", null],
    ["an empty string", ""],
    ["only pipes", "|||"],
  ])("gives an empty ACL for %s", (_label, acl) => {
    expect(plain(parseAccessList(acl))).toEqual(empty);
  });

  it("deduplicates repeated entries", () => {
    expect(plain(parseAccessList("|user:ann@x.org|USER:ANN@X.ORG|user:ann@x.org|"))).toEqual({ ...empty, users: ["ann@x.org"] });
  });
});

describe("formatAccessList", () => {
  it("formats in canonical order: everyone, users, roles, groups, denied, each sorted", () => {
    const parsed = parseAccessList(
      "|deny:zed@x.org|group:ops|role:hr|user:bob@x.org|user:_all_|deny:amy@x.org|user:ann@x.org|role:admin|group:eng|",
    );
    expect(formatAccessList(parsed)).toBe(
      "|user:_all_|user:ann@x.org|user:bob@x.org|role:admin|role:hr|group:eng|group:ops|deny:amy@x.org|deny:zed@x.org|",
    );
  });

  it("formats an empty ACL as an empty string", () => {
    expect(formatAccessList(parseAccessList(""))).toBe("");
  });

  it.each([
    "|user:ann@x.org|",
    "|user:_all_|",
    "|user:_all_|user:ann@x.org|user:bob@x.org|role:hr|group:eng|deny:zed@x.org|",
    "|role:admin|role:hr|group:dept:finance|",
  ])("round-trips the canonical form %s unchanged", (canonical) => {
    expect(formatAccessList(parseAccessList(canonical))).toBe(canonical);
  });

  it("parses its own output back to the same ACL", () => {
    const original = parseAccessList(" Role:HR | user:Ann@x.org|deny:BOB@x.org | group:eng|user:_all_ ");
    expect(plain(parseAccessList(formatAccessList(original)))).toEqual(plain(original));
  });
});

describe("normalizeAccessList", () => {
  it("stores an ACL in NFKC, without default-ignorable code points, lower-cased", () => {
    expect(normalizeAccessList("|user:Ann@X.org|deny:ｂｏｂ\u200B@x.org|group:H\u00ADR|")).toBe("|user:ann@x.org|deny:bob@x.org|group:hr|");
  });

  it("is idempotent and parses to the same list as the original", () => {
    const raw = "|ROLE:Ｍａｎａｇｅｒ|user:_all_|deny:a\u200Dnn@x.org|";
    const normalized = normalizeAccessList(raw);
    expect(normalizeAccessList(normalized)).toBe(normalized);
    expect(parseAccessList(normalized)).toEqual(parseAccessList(raw));
    expect([...parseAccessList(raw).roles]).toEqual(["manager"]);
    expect([...parseAccessList(raw).denied]).toEqual(["ann@x.org"]);
  });
});
