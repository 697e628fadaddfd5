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

/**
 * Collapses the spaces a removed marker leaves (doubled, or before punctuation) and trims. Code
 * (an inline span or a fenced block) is left as written: `fastsync ./photos` keeps its space; so
 * is a number written with a leading point or comma (`is .546`, whose space is not before
 * punctuation).
 */
export function tidyAfterCitations(text: string): string {
  return text
    .split(/(```[\s\S]*?```|`[^`\n]*`)/)
    .map((part, index) => (index % 2 === 1 ? part : part.replace(/[ \t]{2,}/g, " ").replace(/[ \t]+([.,;:!?])(?!\d)/g, "$1")))
    .join("")
    .trim();
}

/** `text` without its citation markers, spaces tidied. */
export function stripCitations(text: string): string {
  return tidyAfterCitations(replaceCitations(text, () => ""));
}

/**
 * Rewrites the free forms in which a model names a context key into markers, so that a cited
 * answer is recognised as one: `[doc_1]`, `(doc_1, doc_2)`, `(Source: doc_1)`, `Source: doc_1`,
 * `document doc_1`, `the source doc_1` and a bare `doc_1` all become `[Source: doc_1]` (keys
 * joined by commas, semicolons or "and" stay one marker). Only the given keys are rewritten, as
 * whole words, and never inside an existing marker; any other text is unchanged.
 *
 * Small models write these forms often (Qwen2.5-Coder-1.5B: "… project, which is described in
 * document doc_1."), although the prompt asks for `[Source: <key>]`.
 *
 * @param keys - the context's keys (`AnswerContext.sources`); none: `text` is returned unchanged.
 * @example
 * ```ts
 * markBareCitations("Ten days, as described in document doc_2.", ["doc_1", "doc_2"]);
 * // "Ten days, as described in [Source: doc_2]."
 * ```
 */
export function markBareCitations(text: string, keys: readonly string[]): string {
  if (keys.length === 0) return text;
  const key = `(?:${[...keys]
    .sort((a, b) => b.length - a.length)
    .map((value) => value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join("|")})`;
  const list = `${key}(?:\\s*(?:,|;|\\band\\b|&)\\s*${key})*`;
  const lead = "(?:(?:the\\s+)?(?:sources?|documents?|docs?|passages?)\\s*:?\\s*)?";
  // One pass, so that a marker written for a bracketed form is not read again as a bare key.
  const form = new RegExp(`[([]\\s*${lead}(${list})\\s*[)\\]]|(?<![\\p{L}\\p{N}_])${lead}(${list})(?![\\p{L}\\p{N}_])`, "giu");
  const canonical = new Map(keys.map((value) => [value.toLowerCase(), value]));
  const marker = (_match: string, bracketed: string | undefined, bare: string | undefined) =>
    formatCitation(
      (bracketed ?? bare ?? "")
        .split(/\s*(?:,|;|\band\b|&)\s*/i)
        .filter((value) => value !== "")
        .map((value) => canonical.get(value.toLowerCase()) ?? value),
    );
  const parts: string[] = [];
  let last = 0;
  for (const match of text.matchAll(citationMarkerPattern())) {
    parts.push(text.slice(last, match.index).replace(form, marker), match[0]);
    last = match.index + match[0].length;
  }
  parts.push(text.slice(last).replace(form, marker));
  return parts.join("");
}
