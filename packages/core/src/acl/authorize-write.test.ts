import { describe, expect, it } from "vitest";
import { authorizeWrite, defaultAdminRoles, isAdministrator } from "./authorize-write.js";
import type { Principal } from "./principal.js";

const ann: Principal = { userName: "ann@x.org", roles: ["staff"], groups: ["eng"] };
const bob: Principal = { userName: "bob@x.org", roles: [], groups: [] };
const admin: Principal = { userName: "root@x.org", roles: ["Admin"], groups: [] };
const anonymous: Principal = { userName: "", roles: [], groups: [] };

describe("isAdministrator", () => {
  it("matches ADMIN_ROLES case-insensitively, default admin", () => {
    expect(defaultAdminRoles).toEqual(["admin"]);
    expect(isAdministrator(admin)).toBe(true);
    expect(isAdministrator(ann)).toBe(false);
    expect(isAdministrator(ann, [" STAFF "])).toBe(true);
    expect(isAdministrator(admin, ["owner", ""])).toBe(false);
  });
});

describe("authorizeWrite: the write rules in order", () => {
  it("rule 1: refuses a principal with no user name and no administrative role", () => {
    expect(authorizeWrite(anonymous, { action: "upsert" })).toEqual({
      allowed: false,
      rule: 1,
      ownerId: "",
      reason: "writing needs a user name or an administrative role",
    });
    expect(authorizeWrite({ ...anonymous, roles: ["admin"] }, { action: "upsert" })).toMatchObject({ allowed: true, rule: 2 });
  });

  it("rule 2: lets an administrator write any document and choose the owner", () => {
    expect(authorizeWrite(admin, { action: "upsert", storedOwner: "ann@x.org", requestedOwner: "Bob@X.org" })).toMatchObject({
      allowed: true,
      rule: 2,
      ownerId: "bob@x.org",
    });
    expect(authorizeWrite(admin, { action: "delete", storedOwner: "ann@x.org" })).toMatchObject({ allowed: true, rule: 2, ownerId: "" });
  });

  it("rule 2: keeps the stored owner when an administrator replaces a document without owner_id", () => {
    expect(authorizeWrite(admin, { action: "upsert", storedOwner: "ann@x.org" }).ownerId).toBe("ann@x.org");
    expect(authorizeWrite(admin, { action: "upsert", storedOwner: "" }).ownerId).toBe("root@x.org");
    expect(authorizeWrite(admin, { action: "upsert" }).ownerId).toBe("root@x.org");
  });

  it("rule 3: refuses to replace or delete somebody else's document, and an ownerless one", () => {
    expect(authorizeWrite(bob, { action: "upsert", storedOwner: "ann@x.org" })).toEqual({
      allowed: false,
      rule: 3,
      ownerId: "",
      reason: "only the document's owner or an administrator may replace it",
    });
    expect(authorizeWrite(bob, { action: "delete", storedOwner: "ann@x.org" })).toMatchObject({
      allowed: false,
      rule: 3,
      reason: "only the document's owner or an administrator may delete it",
    });
    expect(authorizeWrite(bob, { action: "upsert", storedOwner: "" })).toMatchObject({ allowed: false, rule: 3 });
    expect(authorizeWrite(bob, { action: "upsert", storedOwner: "bob@x.org", requestedOwner: "ann@x.org" })).toMatchObject({
      allowed: false,
      rule: 4,
    });
  });

  it("rule 4: refuses a non-administrator naming another owner, even for a new document", () => {
    expect(authorizeWrite(bob, { action: "upsert", requestedOwner: "ann@x.org" })).toEqual({
      allowed: false,
      rule: 4,
      ownerId: "",
      reason: "only an administrator may make somebody else the owner (owner_id)",
    });
    expect(authorizeWrite(bob, { action: "upsert", requestedOwner: "" })).toMatchObject({ allowed: false, rule: 4 });
  });

  it("rule 5: lets a user create a document and change or delete their own, compared case-insensitively", () => {
    expect(authorizeWrite(bob, { action: "upsert" })).toEqual({
      allowed: true,
      rule: 5,
      ownerId: "bob@x.org",
      reason: "a new document is owned by its uploader",
    });
    expect(
      authorizeWrite({ ...ann, userName: " ANN@x.org " }, { action: "upsert", storedOwner: "Ann@X.org", requestedOwner: "ann@x.org" }),
    ).toEqual({
      allowed: true,
      rule: 5,
      ownerId: "ann@x.org",
      reason: "the owner may change the document",
    });
    expect(authorizeWrite(ann, { action: "delete", storedOwner: "ann@x.org" })).toMatchObject({ allowed: true, rule: 5, ownerId: "" });
  });

  it("never lets ACL grants, roles or groups stand in for ownership", () => {
    const grantedEverything: Principal = { userName: "eve@x.org", roles: ["staff", "hr"], groups: ["eng"] };
    for (const action of ["upsert", "delete"] as const)
      expect(authorizeWrite(grantedEverything, { action, storedOwner: "ann@x.org" }).allowed).toBe(false);
  });

  it("takes ADMIN_ROLES from the caller", () => {
    expect(authorizeWrite(ann, { action: "delete", storedOwner: "bob@x.org" }, ["staff"])).toMatchObject({ allowed: true, rule: 2 });
    expect(authorizeWrite(admin, { action: "delete", storedOwner: "bob@x.org" }, ["librarian"])).toMatchObject({ allowed: false, rule: 3 });
  });
});
