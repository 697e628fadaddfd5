/**
 * Checks a settings table in Markdown against a settings schema, as `docs/configuration.md` is
 * checked against the configuration: a store backend whose settings are its own documents them in
 * its package's README, and its test calls {@link settingsDocumentationProblems} on it.
 */
import type { z } from "zod";
import { settingsOf } from "../config/setting-helpers.js";

/** The variables `markdown` documents: the first cells of table rows that hold one code span, ``| `QDRANT_URL` | ...``. */
export function documentedVariables(markdown: string): string[] {
  return [...markdown.matchAll(/^\|\s*`([A-Z0-9_]+)`\s*\|/gm)].map((match) => match[1] as string);
}

/**
 * What the settings table in `markdown` lacks or has too much for `schema`: `missing`, the
 * variables of its settings (marked with `setting()`) without a row; `unknown`, rows naming no
 * variable of it. Both empty when the table is complete.
 *
 * @example
 * ```ts
 * const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
 * expect(settingsDocumentationProblems(storeBackend.settings, readme)).toEqual({ missing: [], unknown: [] });
 * ```
 */
export function settingsDocumentationProblems(schema: z.ZodType, markdown: string): { missing: string[]; unknown: string[] } {
  const variables = settingsOf(schema).map((location) => location.env);
  const documented = new Set(documentedVariables(markdown));
  return {
    missing: variables.filter((name) => !documented.has(name)),
    unknown: [...documented].filter((name) => !variables.includes(name)),
  };
}
