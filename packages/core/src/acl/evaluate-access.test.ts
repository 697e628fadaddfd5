import { describe, expect, it } from "vitest";
import { parseAccessList } from "./access-list.js";
import { canRead, evaluateAccess } from "./evaluate-access.js";
import type { Principal } from "./principal.js";

const ann: Principal = { userName: "ann@x.org", roles: [], groups: [] };
const stranger: Principal = { userName: "zed@x.org", roles: [], groups: [] };

describe("evaluateAccess: the seven rules in order", () => {
  describe("rule 1: deny:<user> blocks", () => {
    it("blocks a denied user", () => {
      expect(evaluateAccess(ann, { ownerId: "bob@x.org", acl: "|deny:ann@x.org|" })).toEqual({ granted: false, rule: 1 });
    });

    it("beats ownership (rule 1 before rule 2)", () => {
      expect(evaluateAccess(ann, { ownerId: "ann@x.org", acl: "|deny:ann@x.org|" })).toEqual({ granted: false, rule: 1 });
    });

    it("beats user:_all_ (rule 1 before rule 3)", () => {
      expect(evaluateAccess(ann, { ownerId: "", acl: "|user:_all_|deny:ann@x.org|" })).toEqual({ granted: false, rule: 1 });
    });

    it("beats an explicit user, role and group grant", () => {
      const principal: Principal = { userName: "ann@x.org", roles: ["hr"], groups: ["eng"] };
      const acl = "|user:ann@x.org|role:hr|group:eng|deny:ann@x.org|";
      expect(evaluateAccess(principal, { ownerId: "", acl })).toEqual({ granted: false, rule: 1 });
    });

    it("matches the denied name case-insensitively", () => {
      const principal: Principal = { userName: "Ann@X.Org", roles: [], groups: [] };
      expect(evaluateAccess(principal, { ownerId: "", acl: "|user:_all_|DENY:ANN@x.org|" })).toEqual({ granted: false, rule: 1 });
    });

    it("is not bypassed by invisible or compatibility characters in the user name (U+200B, U+200D, U+00AD, fullwidth)", () => {
      const acl = "|user:_all_|deny:bob@x.org|";
      for (const userName of ["bob\u200B@x.org", "b\u200Dob@x.org", "bo\u00ADb@x.org", "ｂｏｂ@x.org", "\uFEFFBOB@X.ORG"]) {
        expect(evaluateAccess({ userName, roles: [], groups: [] }, { ownerId: "", acl }), userName).toEqual({ granted: false, rule: 1 });
      }
    });

    it("blocks the user named by a deny entry stored before normalisation (fullwidth, zero-width)", () => {
      const bob: Principal = { userName: "bob@x.org", roles: [], groups: [] };
      expect(evaluateAccess(bob, { ownerId: "", acl: "|user:_all_|deny:ｂｏｂ@x.org|" })).toEqual({ granted: false, rule: 1 });
      expect(evaluateAccess(bob, { ownerId: "", acl: "|user:_all_|deny:bob\u200B@x.org|" })).toEqual({ granted: false, rule: 1 });
    });

    it("does not block users other than the denied one", () => {
      expect(evaluateAccess(stranger, { ownerId: "", acl: "|user:_all_|deny:ann@x.org|" })).toEqual({ granted: true, rule: 3 });
    });
  });

  describe("rule 2: the owner is granted", () => {
    it("grants the owner of a document with no ACL", () => {
      expect(evaluateAccess(ann, { ownerId: "ann@x.org", acl: "" })).toEqual({ granted: true, rule: 2 });
    });

    it("compares owner and user case-insensitively", () => {
      const principal: Principal = { userName: "ANN@x.org", roles: [], groups: [] };
      expect(evaluateAccess(principal, { ownerId: "Ann@X.org", acl: "" })).toEqual({ granted: true, rule: 2 });
    });

    it("decides before user:_all_ (rule 2 before rule 3)", () => {
      expect(evaluateAccess(ann, { ownerId: "ann@x.org", acl: "|user:_all_|" })).toEqual({ granted: true, rule: 2 });
    });

    it("never matches an empty user name against an empty owner", () => {
      const anonymous: Principal = { userName: "", roles: [], groups: [] };
      expect(evaluateAccess(anonymous, { ownerId: "", acl: "" })).toEqual({ granted: false, rule: 7 });
    });
  });

  describe("rule 3: user:_all_ grants everyone", () => {
    it("grants a user not named anywhere", () => {
      expect(evaluateAccess(stranger, { ownerId: "ann@x.org", acl: "|user:_all_|" })).toEqual({ granted: true, rule: 3 });
    });

    it("decides before an explicit user entry (rule 3 before rule 4)", () => {
      expect(evaluateAccess(ann, { ownerId: "", acl: "|user:ann@x.org|user:_all_|" })).toEqual({ granted: true, rule: 3 });
    });
  });

  describe("rule 4: user:<user> grants that user", () => {
    it("grants a listed user", () => {
      expect(evaluateAccess(ann, { ownerId: "bob@x.org", acl: "|user:ann@x.org|" })).toEqual({ granted: true, rule: 4 });
    });

    it("matches the user case-insensitively", () => {
      const principal: Principal = { userName: "ANN@X.ORG", roles: [], groups: [] };
      expect(evaluateAccess(principal, { ownerId: "", acl: "|user:Ann@x.org|" })).toEqual({ granted: true, rule: 4 });
    });

    it("decides before a role grant (rule 4 before rule 5)", () => {
      const principal: Principal = { userName: "ann@x.org", roles: ["hr"], groups: [] };
      expect(evaluateAccess(principal, { ownerId: "", acl: "|role:hr|user:ann@x.org|" })).toEqual({ granted: true, rule: 4 });
    });

    it("does not grant other users", () => {
      expect(evaluateAccess(stranger, { ownerId: "", acl: "|user:ann@x.org|" })).toEqual({ granted: false, rule: 7 });
    });
  });

  describe("rule 5: role:<r> grants users with role r", () => {
    it("grants a user holding one of the listed roles", () => {
      const principal: Principal = { userName: "zed@x.org", roles: ["viewer", "hr"], groups: [] };
      expect(evaluateAccess(principal, { ownerId: "", acl: "|role:hr|" })).toEqual({ granted: true, rule: 5 });
    });

    it("matches roles case-insensitively in both directions", () => {
      const upperPrincipal: Principal = { userName: "zed@x.org", roles: ["HR"], groups: [] };
      expect(evaluateAccess(upperPrincipal, { ownerId: "", acl: "|role:hr|" })).toEqual({ granted: true, rule: 5 });
      const lowerPrincipal: Principal = { userName: "zed@x.org", roles: ["hr"], groups: [] };
      expect(evaluateAccess(lowerPrincipal, { ownerId: "", acl: "|ROLE:Hr|" })).toEqual({ granted: true, rule: 5 });
    });

    it("decides before a group grant (rule 5 before rule 6)", () => {
      const principal: Principal = { userName: "zed@x.org", roles: ["hr"], groups: ["eng"] };
      expect(evaluateAccess(principal, { ownerId: "", acl: "|group:eng|role:hr|" })).toEqual({ granted: true, rule: 5 });
    });

    it("does not grant a user whose roles are not listed", () => {
      const principal: Principal = { userName: "zed@x.org", roles: ["finance"], groups: [] };
      expect(evaluateAccess(principal, { ownerId: "", acl: "|role:hr|" })).toEqual({ granted: false, rule: 7 });
    });

    it("does not let a role name match a group entry", () => {
      const principal: Principal = { userName: "zed@x.org", roles: ["eng"], groups: [] };
      expect(evaluateAccess(principal, { ownerId: "", acl: "|group:eng|" })).toEqual({ granted: false, rule: 7 });
    });
  });

  describe("rule 6: group:<g> grants members of g", () => {
    it("grants a member of a listed group", () => {
      const principal: Principal = { userName: "zed@x.org", roles: [], groups: ["sales", "eng"] };
      expect(evaluateAccess(principal, { ownerId: "", acl: "|group:eng|" })).toEqual({ granted: true, rule: 6 });
    });

    it("matches groups case-insensitively in both directions", () => {
      const upperPrincipal: Principal = { userName: "zed@x.org", roles: [], groups: ["ENG"] };
      expect(evaluateAccess(upperPrincipal, { ownerId: "", acl: "|group:eng|" })).toEqual({ granted: true, rule: 6 });
      const lowerPrincipal: Principal = { userName: "zed@x.org", roles: [], groups: ["eng"] };
      expect(evaluateAccess(lowerPrincipal, { ownerId: "", acl: "|GROUP:Eng|" })).toEqual({ granted: true, rule: 6 });
    });

    it("does not let a group name match a role entry", () => {
      const principal: Principal = { userName: "zed@x.org", roles: [], groups: ["hr"] };
      expect(evaluateAccess(principal, { ownerId: "", acl: "|role:hr|" })).toEqual({ granted: false, rule: 7 });
    });
  });

  describe("rule 7: otherwise blocked", () => {
    it("blocks everyone but the owner when there is no ACL", () => {
      expect(evaluateAccess(stranger, { ownerId: "ann@x.org", acl: "" })).toEqual({ granted: false, rule: 7 });
    });

    it("blocks a user matching nothing in a non-empty ACL", () => {
      const principal: Principal = { userName: "zed@x.org", roles: ["viewer"], groups: ["sales"] };
      expect(evaluateAccess(principal, { ownerId: "ann@x.org", acl: "|user:bob@x.org|role:hr|group:eng|" })).toEqual({
        granted: false,
        rule: 7,
      });
    });

    it("blocks an empty user name on a document with an ACL of named grants only", () => {
      const anonymous: Principal = { userName: "", roles: [], groups: [] };
      expect(evaluateAccess(anonymous, { ownerId: "ann@x.org", acl: "|user:ann@x.org|" })).toEqual({ granted: false, rule: 7 });
    });
  });

  it("accepts an already parsed ACL with the same outcome as the string", () => {
    const principal: Principal = { userName: "zed@x.org", roles: [], groups: ["Eng"] };
    const acl = "|user:ann@x.org|group:eng|";
    expect(evaluateAccess(principal, { ownerId: "", acl: parseAccessList(acl) })).toEqual({ granted: true, rule: 6 });
    expect(evaluateAccess(principal, { ownerId: "", acl })).toEqual({ granted: true, rule: 6 });
  });
});

describe("canRead", () => {
  it("returns the decision's granted flag", () => {
    expect(canRead(ann, { ownerId: "ann@x.org", acl: "" })).toBe(true);
    expect(canRead(stranger, { ownerId: "ann@x.org", acl: "" })).toBe(false);
    expect(canRead(ann, { ownerId: "ann@x.org", acl: "|deny:ann@x.org|" })).toBe(false);
  });
});
