/**
 * The one citation grammar of docqa (spec "Source": "citations of the form `[Source: <key>]`"):
 * a marker is `[Source: <keys>]`, case-insensitive, with optional spaces, and may list several
 * keys separated by commas, semicolons or spaces (`[Source: doc_1, doc_2]`). Everything that
 * writes, reads or rewrites citations uses these functions.
 */

/** A citation marker; group 1 is its key list. Create a fresh one per use (it is global). */
export function citationMarkerPattern(): RegExp {
  return /\[\s*Source\s*:\s*([^\]]*)\]/gi;
}

/** The keys of a marker's key list, in order, empty entries dropped. */
export function parseCitationKeys(list: string): string[] {
  return list.split(/[,;\s]+/).filter((key) => key !== "");
}

/**
 * The marker citing `keys`, or `""` when there are none.
 *
 * @example
 * ```ts
 * formatCitation(["doc_1", "doc_3"]); // "[Source: doc_1, doc_3]"
 * ```
 */
export function formatCitation(keys: readonly string[]): string {
  return keys.length === 0 ? "" : `[Source: ${keys.join(", ")}]`;
}

/** Every key cited in `text`, in order of first appearance. */
export function citedKeys(text: string): string[] {
  const keys: string[] = [];
  for (const match of text.matchAll(citationMarkerPattern())) {
    for (const key of parseCitationKeys(match[1] ?? "")) if (!keys.includes(key)) keys.push(key);
  }
  return keys;
}

/** Replaces every marker of `text` by what `replace` returns for its keys. */
export function replaceCitations(text: string, replace: (keys: string[]) => string): string {
  return text.replace(citationMarkerPattern(), (_marker, list: string) => replace(parseCitationKeys(list)));
}

/** Collapses the spaces a removed marker leaves (doubled, or before punctuation) and trims. */
export function tidyAfterCitations(text: string): string {
  return text
    .replace(/[ \t]{2,}/g, " ")
    .replace(/[ \t]+([.,;:!?])/g, "$1")
    .trim();
}

/** `text` without its citation markers, spaces tidied. */
export function stripCitations(text: string): string {
  return tidyAfterCitations(replaceCitations(text, () => ""));
}
