import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { environmentVariableNames } from "./environment-schema.js";

const documentation = readFileSync(new URL("../../../../docs/configuration.md", import.meta.url), "utf8");

describe("docs/configuration.md", () => {
  it("documents every environment variable docqa reads", () => {
    const documented = new Set([...documentation.matchAll(/^\|\s*`([A-Z0-9_]+)`\s*\|/gm)].map((match) => match[1]));
    const missing = environmentVariableNames.filter((name) => !documented.has(name));
    const unknown = [...documented].filter((name) => !(environmentVariableNames as string[]).includes(name as string));
    expect({ missing, unknown }).toEqual({ missing: [], unknown: [] });
  });
});
