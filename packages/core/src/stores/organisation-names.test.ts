import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { organisationCollectionName, organisationSuffix } from "./organisation-names.js";

const uuid = "3f2c1a9e-7b4d-4c2a-9e1f-0a1b2c3d4e5f";
const hashOf = (value: string) => createHash("sha256").update(value, "utf8").digest("hex").slice(0, 16);

describe("organisationSuffix", () => {
  it("replaces the dashes of a lower-case UUID with underscores", () => {
    expect(organisationSuffix(uuid)).toBe("3f2c1a9e_7b4d_4c2a_9e1f_0a1b2c3d4e5f");
  });

  it("maps an upper-case variant of a UUID to a different, hashed name", () => {
    const upper = uuid.toUpperCase();
    // The readable prefix is cut to 32 characters.
    expect(organisationSuffix(upper)).toBe(`3f2c1a9e_7b4d_4c2a_9e1f_0a1b2c3d_h${hashOf(upper)}`);
    expect(organisationSuffix(upper)).not.toBe(organisationSuffix(uuid));
  });

  it("maps ids differing only in case to different names", () => {
    const names = ["Acme", "acme", "ACME", "aCme"].map(organisationSuffix);
    expect(new Set(names).size).toBe(4);
    expect(organisationSuffix("Acme")).toBe(`acme_h${hashOf("Acme")}`);
  });

  it("maps ids differing only in punctuation to different names", () => {
    const ids = ["acme-corp", "acme_corp", "acme.corp", "acme corp", "acme--corp", "acme/corp"];
    const names = ids.map(organisationSuffix);
    expect(new Set(names).size).toBe(ids.length);
    for (const name of names) expect(name.startsWith("acme_corp_h")).toBe(true);
  });

  it("does not let a UUID-shaped id with underscores collide with the UUID", () => {
    const underscored = "3f2c1a9e_7b4d_4c2a_9e1f_0a1b2c3d4e5f";
    expect(organisationSuffix(underscored)).not.toBe(organisationSuffix(uuid));
    expect(organisationSuffix(underscored)).toBe(`${underscored.slice(0, 32)}_h${hashOf(underscored)}`);
  });

  it.each([
    uuid,
    uuid.toUpperCase(),
    "Acme Corp (EU)",
    "société-générale",
    "東京支社",
    "emoji 🚀 org",
    "",
    "---",
    "a".repeat(200),
    "DROP TABLE; --",
  ])("uses only [a-z0-9_] for %j", (orgId) => {
    expect(organisationSuffix(orgId)).toMatch(/^[a-z0-9_]+$/);
  });

  it("keeps a readable prefix of at most 32 characters", () => {
    expect(organisationSuffix("x".repeat(100))).toBe(`${"x".repeat(32)}_h${hashOf("x".repeat(100))}`);
  });

  it("trims leading and trailing separators from the readable prefix", () => {
    expect(organisationSuffix("--Acme Corp!!")).toBe(`acme_corp_h${hashOf("--Acme Corp!!")}`);
  });

  it("maps ids without any ASCII letters or digits to the hash alone", () => {
    expect(organisationSuffix("東京")).toBe(`_h${hashOf("東京")}`);
    expect(organisationSuffix("東京")).not.toBe(organisationSuffix("大阪"));
  });

  it("is deterministic", () => {
    expect(organisationSuffix("Acme Corp")).toBe(organisationSuffix("Acme Corp"));
  });
});

describe("organisationCollectionName", () => {
  it("appends the suffix to the base name with an underscore", () => {
    expect(organisationCollectionName("docs_collection", uuid)).toBe("docs_collection_3f2c1a9e_7b4d_4c2a_9e1f_0a1b2c3d4e5f");
    expect(organisationCollectionName("docs_bm25", "Acme")).toBe(`docs_bm25_acme_h${hashOf("Acme")}`);
  });
});
