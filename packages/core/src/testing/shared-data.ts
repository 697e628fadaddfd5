/**
 * Location of the shared test data (`../shared/data` beside the repository), for tests and
 * benchmarks that read real documents. Set `DOCQA_SHARED_DATA` to point elsewhere.
 */
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/** The shared data directory, or undefined when it is absent. */
export function sharedDataDirectory(): string | undefined {
  const candidates = [
    process.env.DOCQA_SHARED_DATA,
    ...ancestors(process.cwd()).map((directory) => join(directory, "..", "shared", "data")),
  ];
  for (const candidate of candidates) {
    if (candidate && existsSync(join(candidate, "SOURCES.md"))) return resolve(candidate);
  }
  return undefined;
}

/** A path inside the shared data directory, or undefined when the directory is absent. */
export function sharedDataPath(...segments: string[]): string | undefined {
  const directory = sharedDataDirectory();
  return directory ? join(directory, ...segments) : undefined;
}

function ancestors(start: string): string[] {
  const list: string[] = [];
  let current = resolve(start);
  for (;;) {
    list.push(current);
    const parent = dirname(current);
    if (parent === current) return list;
    current = parent;
  }
}

/**
 * Whether tests run in continuous integration (`CI=true`), where shared data and fetched models
 * are always present: tests that would skip without them must fail instead.
 */
export function isContinuousIntegration(): boolean {
  return process.env.CI === "true";
}
