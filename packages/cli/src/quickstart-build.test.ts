/**
 * The quick start builds once and then reuses the build (`scripts/build-state.mjs`): the build is
 * current after it is recorded, until an input of the build changes or an output goes missing;
 * tests and other files outside the build's inputs do not make it stale.
 */
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { buildInputs, buildIsCurrent, recordBuild, requiredOutputs } from "../../../scripts/build-state.mjs";

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function write(root: string, path: string, content: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), content);
}

/** A repository with a few sources and every output the quick start runs. */
function repository(): string {
  const root = mkdtempSync(join(tmpdir(), "docqa-build-state-"));
  roots.push(root);
  write(root, "package.json", "{}");
  write(root, "tsup.config.ts", "export default {};");
  write(root, "packages/core/package.json", "{}");
  write(root, "packages/core/src/index.ts", "export const a = 1;");
  write(root, "packages/core/src/index.test.ts", "test");
  write(root, "packages/web-ui/browser/app.tsx", "export {};");
  for (const output of requiredOutputs) write(root, output, "// built");
  return root;
}

describe("the quick start's build state", () => {
  it("is current once recorded, and stale when a source changes, a source is added or an output is missing", () => {
    const root = repository();
    expect(buildInputs(root)).toEqual([
      "package.json",
      "packages/core/package.json",
      "packages/core/src/index.ts",
      "packages/web-ui/browser/app.tsx",
      "tsup.config.ts",
    ]);
    expect(buildIsCurrent(root)).toBe(false);
    recordBuild(root);
    expect(buildIsCurrent(root)).toBe(true);

    // Tests and the outputs themselves are not inputs.
    write(root, "packages/core/src/index.test.ts", "another test");
    write(root, "packages/cli/dist/bin.js", "// rebuilt");
    expect(buildIsCurrent(root)).toBe(true);

    write(root, "packages/core/src/index.ts", "export const a = 2;");
    expect(buildIsCurrent(root)).toBe(false);
    recordBuild(root);
    write(root, "packages/core/src/extra.ts", "export const b = 1;");
    expect(buildIsCurrent(root)).toBe(false);
    recordBuild(root);
    expect(buildIsCurrent(root)).toBe(true);
    unlinkSync(join(root, "packages/core/dist/ingestion-worker.js"));
    expect(buildIsCurrent(root)).toBe(false);
  });
});
