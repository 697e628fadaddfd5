import { DocqaError } from "@docqa/core";
import { describe, expect, it } from "vitest";
import { maximumIndexBaseLength, organisationIndexNames, validateIndexBase } from "./index-names.js";

describe("organisationIndexNames", () => {
  it("names the alias and the versioned index of chunks and registry", () => {
    expect(organisationIndexNames("docs_bm25", "3f2c0e1a-0000-4000-8000-000000000001")).toEqual({
      chunks: "docs_bm25_3f2c0e1a_0000_4000_8000_000000000001",
      chunksIndex: "docs_bm25_3f2c0e1a_0000_4000_8000_000000000001_v1",
      registry: "docs_bm25_3f2c0e1a_0000_4000_8000_000000000001_registry",
      registryIndex: "docs_bm25_3f2c0e1a_0000_4000_8000_000000000001_registry_v1",
    });
  });

  it("gives lower-case, distinct names for ids differing only in case or punctuation", () => {
    const ids = ["Acme", "acme", "ACME!", "a c m e", "Ünïcödé Org", "../../etc", "*", `x${"y".repeat(300)}`];
    const names = ids.map((id) => organisationIndexNames("docs_bm25", id));
    for (const name of names) {
      for (const value of Object.values(name)) {
        expect(value).toMatch(/^[a-z0-9_]+$/);
        expect(Buffer.byteLength(value)).toBeLessThanOrEqual(255);
      }
    }
    const all = names.flatMap((name) => Object.values(name));
    expect(new Set(all).size).toBe(all.length);
  });

  it("stays within 255 bytes for the longest base", () => {
    const names = organisationIndexNames("b".repeat(maximumIndexBaseLength), `Org ${"z".repeat(100)}`);
    expect(names.registryIndex.length).toBeLessThanOrEqual(255);
  });
});

describe("validateIndexBase", () => {
  it("accepts lower-case names and refuses what the engines refuse", () => {
    expect(validateIndexBase("docs_bm25")).toBe("docs_bm25");
    expect(validateIndexBase("docqa-test.1")).toBe("docqa-test.1");
    for (const bad of [
      "Docs",
      "_docs",
      "-docs",
      ".docs",
      "docs*",
      "do cs",
      "docs,x",
      "docs/x",
      "",
      "b".repeat(maximumIndexBaseLength + 1),
    ]) {
      let error: unknown;
      try {
        validateIndexBase(bad);
      } catch (caught) {
        error = caught;
      }
      expect(DocqaError.isInstance(error) && error.code, bad).toBe("config_invalid");
      expect((error as Error).message).toContain("FULLTEXT_INDEX");
    }
  });
});
