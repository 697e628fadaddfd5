/**
 * Renders the spec's Answer object and its cited sources as the plain text of
 * `POST /api/chat`'s `response`, with numbered citations and a list of the files they point to.
 */
import type { Answer, Source } from "@docqa/core";
import { replaceCitations } from "@docqa/core/answering";

/** Output of {@link renderAnswer}. */
export interface RenderedAnswer {
  /** The answer as text; see {@link renderAnswer}. */
  text: string;
  /** File names of the cited sources, in citation order, without duplicates. */
  files: string[];
  /** Source keys (`doc_<n>`) in the order their numbers were given: `citedKeys[0]` is `[1]`. */
  citedKeys: string[];
}

/** The last path segment of a document id, without a JSON record suffix (`docs/a.json#3` → `a.json`). */
function fileNameOfDocumentId(docId: string): string {
  return (docId.split(/[\\/]/).at(-1) ?? docId).replace(/#\d+$/, "");
}

/**
 * The files a source comes from: its `metadata.filename`; for a RAPTOR summary, the files of the
 * documents it summarises (`metadata.raptor_documents`); else its document id (documents stored
 * through set A's `/upsert` have no file).
 */
export function sourceFileNames(metadata: Readonly<Record<string, unknown>>, fallback = ""): string[] {
  if (typeof metadata.filename === "string" && metadata.filename !== "") return [metadata.filename];
  const summarised = metadata.raptor_documents;
  if (Array.isArray(summarised) && summarised.length > 0) {
    const names = summarised
      .map((document) => (typeof document?.doc_id === "string" ? fileNameOfDocumentId(document.doc_id) : ""))
      .filter((name) => name !== "");
    if (names.length > 0) return [...new Set(names)];
  }
  if (typeof metadata.doc_id === "string" && metadata.doc_id !== "") return [fileNameOfDocumentId(metadata.doc_id)];
  return fallback === "" ? [] : [fallback];
}

/** Where in its file a source is: `page 3`, `section Leave > Vacation`, `record 4`, `rows 2-24`. */
function location(metadata: Readonly<Record<string, unknown>>): string | undefined {
  if (typeof metadata.page === "number") return `page ${metadata.page}`;
  if (typeof metadata.section === "string" && metadata.section !== "") return `section ${metadata.section}`;
  if (typeof metadata.record === "number") return `record ${metadata.record}`;
  if (typeof metadata.rows === "string" && metadata.rows !== "") return `rows ${metadata.rows}`;
  return undefined;
}

function describeSource(source: Source): string {
  const files = sourceFileNames(source.metadata, source.title);
  if (typeof source.metadata.raptor_level === "number") return `summary of ${files.join(", ")}`;
  const where = location(source.metadata);
  return where ? `${files.join(", ")}, ${where}` : files.join(", ");
}

/**
 * Renders `answer` as text. Layout, each part only when not empty:
 *
 * ```text
 * <callout_answer>
 *
 * Supporting points:
 * - <positive_list item>
 *
 * Caveats:
 * - <negative_list item>
 *
 * Further information:
 * - <info_list item>
 *
 * Sources:
 * [1] <file>, <page | section | record | rows>
 * ```
 *
 * Citation markers `[Source: doc_4]` become `[1]`, `[Source: doc_2, doc_4]` become `[2, 1]`:
 * sources are numbered in the order they are first cited; keys missing from `sources` are dropped.
 * The Answer's `keywords` are not rendered: they index the answer rather than say anything.
 */
export function renderAnswer(answer: Answer, sources: Readonly<Record<string, Source>>): RenderedAnswer {
  const citedKeys: string[] = [];
  const number = (key: string): number => {
    let index = citedKeys.indexOf(key);
    if (index < 0) index = citedKeys.push(key) - 1;
    return index + 1;
  };
  const rewrite = (text: string): string =>
    replaceCitations(text, (keys) => {
      const known = keys.filter((key) => Object.hasOwn(sources, key));
      return known.length === 0 ? "" : `[${known.map(number).join(", ")}]`;
    })
      .replace(/[ \t]{2,}/g, " ")
      .trim();
  const parts: string[] = [];
  const callout = rewrite(answer.callout_answer);
  if (callout !== "") parts.push(callout);
  const list = (heading: string, items: readonly string[]) => {
    const lines = items.map(rewrite).filter((item) => item !== "");
    if (lines.length > 0) parts.push(`${heading}:\n${lines.map((line) => `- ${line}`).join("\n")}`);
  };
  list("Supporting points", answer.positive_list);
  list("Caveats", answer.negative_list);
  list("Further information", answer.info_list);
  if (citedKeys.length > 0) {
    parts.push(`Sources:\n${citedKeys.map((key, index) => `[${index + 1}] ${describeSource(sources[key] as Source)}`).join("\n")}`);
  }
  const files = [
    ...new Set(citedKeys.flatMap((key) => sourceFileNames((sources[key] as Source).metadata, (sources[key] as Source).title))),
  ];
  return { text: parts.join("\n\n"), files, citedKeys };
}
