/**
 * The answer as the web page shows it: the Answer object's text split into plain segments and
 * numbered citations (`[Source: doc_2, doc_4]` → citations 1 and 2, numbered in the order they are
 * first cited), each citation's source with the cited passage, the document's title and file
 * name, and whether the answerer abstained.
 */
import { noInformationSentence, type PredictResult, type Source } from "@docqa/core";
import { replaceCitations } from "@docqa/core/answering";
import type { AnswerSegment, UiAnswer, UiSource } from "./ui-api-types.js";

/** A character no answer contains, marking where a citation was. */
const mark = "\u0000";

function locationOf(metadata: Readonly<Record<string, unknown>>): string {
  if (typeof metadata.page === "number") return `page ${metadata.page}`;
  if (typeof metadata.section === "string" && metadata.section !== "") return `section ${metadata.section}`;
  if (typeof metadata.record === "number") return `record ${metadata.record}`;
  if (typeof metadata.rows === "string" && metadata.rows !== "") return `rows ${metadata.rows}`;
  return "";
}

/** The last path segment of a document id, without a JSON record suffix (`docs/a.json#3` → `a.json`). */
function fileOfDocumentId(docId: string): string {
  return (docId.split(/[\\/]/).at(-1) ?? docId).replace(/#\d+$/, "");
}

/**
 * The file name of a source: `metadata.filename`; for a RAPTOR summary node, `summary of` the
 * files it summarises (`metadata.raptor_documents`); else the last segment of its document id.
 */
export function fileNameOf(metadata: Readonly<Record<string, unknown>>, fallback: string): string {
  if (typeof metadata.filename === "string" && metadata.filename !== "") return metadata.filename;
  const summarised = metadata.raptor_documents;
  if (Array.isArray(summarised) && summarised.length > 0) {
    const files = summarised
      .map((document: unknown) =>
        typeof (document as { doc_id?: unknown })?.doc_id === "string" ? fileOfDocumentId((document as { doc_id: string }).doc_id) : "",
      )
      .filter((name) => name !== "");
    if (files.length > 0) return `summary of ${[...new Set(files)].join(", ")}`;
  }
  if (typeof metadata.doc_id === "string" && metadata.doc_id !== "") return metadata.doc_id.split(/[\\/]/).at(-1) ?? metadata.doc_id;
  return fallback;
}

/**
 * Maps a `predict` result to what the page shows. Keys cited but absent from `sources` are
 * dropped (the service has already removed unknown keys; this is a second guard).
 */
export function uiAnswer(result: PredictResult): UiAnswer {
  const numbers = new Map<string, number>();
  const sources: UiSource[] = [];
  const numberOf = (key: string): number | undefined => {
    const source: Source | undefined = result.sources[key];
    if (!source) return undefined;
    let number = numbers.get(key);
    if (number === undefined) {
      number = numbers.size + 1;
      numbers.set(key, number);
      sources.push({
        number,
        key,
        title: source.title,
        fileName: fileNameOf(source.metadata, source.title),
        location: locationOf(source.metadata),
        passage: source.page_content,
        docId: typeof source.metadata.doc_id === "string" ? source.metadata.doc_id : "",
      });
    }
    return number;
  };
  const segments = (text: string): AnswerSegment[] => {
    const marked = replaceCitations(text, (keys) => `${mark}${keys.join(",")}${mark}`);
    return marked
      .split(mark)
      .map((part, index): AnswerSegment | undefined => {
        if (index % 2 === 0) return part === "" ? undefined : { text: part };
        const cite = part
          .split(",")
          .map(numberOf)
          .filter((number) => number !== undefined);
        return cite.length > 0 ? { cite } : undefined;
      })
      .filter((segment) => segment !== undefined);
  };
  const { answer } = result;
  const callout = segments(answer.callout_answer);
  const positives = answer.positive_list.map(segments);
  const caveats = answer.negative_list.map(segments);
  const information = answer.info_list.map(segments);
  const declared = result as PredictResult & { abstained?: boolean; abstentionReason?: string | null; abstention_reason?: string | null };
  const abstained = declared.abstained ?? (result.answerMode === "empty-context" || answer.callout_answer.trim() === noInformationSentence);
  return {
    threadId: result.threadId,
    query: result.query,
    callout,
    positives,
    caveats,
    information,
    sources,
    answerMode: result.answerMode,
    abstained,
    abstentionReason: declared.abstentionReason ?? declared.abstention_reason ?? null,
    totalMs: result.timings.totalMs,
  };
}
