import { describe, expect, it } from "vitest";
import { escapeKeyPart } from "./escape-key-part.js";
import { redisKeyLayout } from "./redis-key-layout.js";

describe("escapeKeyPart", () => {
  it("keeps plain characters and escapes every other UTF-16 code unit in four hex digits", () => {
    expect(escapeKeyPart("ada@example.org")).toBe("ada@example.org");
    expect(escapeKeyPart("a_b-c+d.e")).toBe("a_b-c+d.e");
    expect(escapeKeyPart("acme:eu")).toBe("acme%003aeu");
    expect(escapeKeyPart("50%")).toBe("50%0025");
    expect(escapeKeyPart("Å {*}")).toBe("%00c5%0020%007b%002a%007d");
    expect(escapeKeyPart("\ud83d\ude00")).toBe("%d83d%de00");
    expect(escapeKeyPart("\ud800")).toBe("%d800");
    expect(escapeKeyPart("")).toBe("");
  });

  it("is injective on tricky values and never yields a separator", () => {
    const values = ["a:b", "a%003ab", "a", "b:c", "a:b:c", "%", "%0025", "\ud800", "\ufffd", "A", "a ", "a\u0000", ""];
    const escaped = values.map(escapeKeyPart);
    expect(new Set(escaped).size).toBe(values.length);
    for (const value of escaped) expect(value).not.toMatch(/[:*?[\]{}\s]/);
  });
});

describe("redisKeyLayout", () => {
  it("names keys under the prefix with escaped parts, so lookalike organisations never share a key", () => {
    const keys = redisKeyLayout("p:");
    expect(keys.job("acme", "job-1")).toBe("p:job:acme:job-1");
    expect(keys.job("a:b", "c")).not.toBe(keys.job("a", "b:c"));
    expect(keys.unfinishedJobs).toBe("p:jobs:unfinished");
    expect(keys.conversation({ orgId: "acme", kind: "session", id: "ada@acme.org" })).toBe("p:memory:acme:session:ada@acme.org");
    expect(keys.conversation({ orgId: "acme", kind: "thread", id: "t:1" })).toBe("p:memory:acme:thread:t%003a1");
    expect(keys.conversation({ orgId: "a:thread", kind: "thread", id: "x" })).not.toBe(
      keys.conversation({ orgId: "a", kind: "thread", id: "thread:x" }),
    );
    expect(keys.userConversations("acme", "ada@acme.org")).toBe("p:memory:acme:user:ada@acme.org");
    expect(keys.rateLimitWindow(100, 60)).toBe("p:rate:100-per-60s");
    expect(redisKeyLayout().job("o", "j")).toBe("docqa:job:o:j");
  });
});
