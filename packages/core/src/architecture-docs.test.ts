/**
 * docs/architecture.md describes the core as it is: its folder map lists every folder of
 * `packages/core/src` (and no other), its entry-point table lists exactly the package's exports,
 * and the count of the root entry's runtime names it states is the count (at most 80, issue 28).
 */
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as root from "./index.js";

const architecture = readFileSync(new URL("../../../docs/architecture.md", import.meta.url), "utf8");
const packageJson = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
  exports: Record<string, unknown>;
};

/** The most runtime names the root entry `@docqa/core` may export (issue 28). */
const maximumRootNames = 80;

/** The first-column code spans of the markdown table that follows `heading`. */
function firstColumn(heading: RegExp): string[] {
  const start = architecture.search(heading);
  expect(start).toBeGreaterThanOrEqual(0);
  const rows: string[] = [];
  let inTable = false;
  for (const line of architecture.slice(start).split("\n").slice(1)) {
    if (line.startsWith("|")) {
      inTable = true;
      const cell = /^\|\s*`([^`]+)`/.exec(line);
      if (cell?.[1]) rows.push(cell[1]);
    } else if (inTable) break;
  }
  return rows;
}

describe("docs/architecture.md", () => {
  it("maps every folder of the core, and only those", () => {
    const folders = readdirSync(new URL("./", import.meta.url), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `${entry.name}/`);
    expect(firstColumn(/^## The core$/m).sort()).toEqual(folders.sort());
  });

  it("lists every entry point of the package, and only those", () => {
    const exported = Object.keys(packageJson.exports)
      .filter((key) => key !== "./package.json")
      .map((key) => key.replace(/^\./, "@docqa/core"));
    expect(firstColumn(/^### Entry points$/m).sort()).toEqual(exported.sort());
  });

  it("states the root entry's count of runtime names, at most the limit", () => {
    const stated = /The root entry `@docqa\/core` keeps at most (\d+) runtime names \((\d+) today/.exec(architecture);
    expect(stated?.[1]).toBe(String(maximumRootNames));
    expect(stated?.[2]).toBe(String(Object.keys(root).length));
    expect(Object.keys(root).length).toBeLessThanOrEqual(maximumRootNames);
  });
});
