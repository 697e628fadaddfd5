/**
 * The answer as the web page shows it: the Answer object's text split into plain segments and
 * numbered citations (`[Source: doc_2, doc_4]` → citations 1 and 2, numbered in the order they are
 * first cited), each citation's source with the cited passage, the sentences of it the answer
 * drew on, the document's title, file name and place in the file (distinct for every source of
 * one answer), and whether the answerer abstained.
 */
import { noInformationSentence, type PredictResult, type Source } from "@docqa/core";
import { replaceCitations } from "@docqa/core/answering";
import { type Analyzer, createEnglishAnalyzer } from "@docqa/core/retrieval";
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
 * Least share of a statement sentence's analysed terms that a sentence of the cited passage must
 * hold to be highlighted as where it comes from. Half: the extractive answerer quotes its
 * sentences (share 1), and a model's paraphrase that keeps half of a sentence's words still points
 * at it; below half, a sentence shares little more than the subject, so none is highlighted.
 */
export const citedSentenceMinimumOverlap = 0.5;

const sentenceSegmenter = new Intl.Segmenter("en", { granularity: "sentence" });
const defaultAnalyzer = createEnglishAnalyzer();

/** A line that stands on its own (a Markdown heading, list item, quote or table row), not a wrapped line of a paragraph. */
const structuralLine = /^\s*(#{1,6}\s|[-*+]\s|\d+[.)]\s|>|\|)/;

/**
 * The sentences of `text` with their ranges (UAX #29 sentence segmentation), blank parts left
 * out. A paragraph's wrapped lines are read as one line (each line break inside it counts as a
 * space, so the offsets stay those of `text`); headings, list items, quotes and table rows end
 * where their line ends.
 */
function sentenceRanges(text: string): { start: number; end: number; text: string }[] {
  const lines = text.split("\n");
  let joined = lines[0] ?? "";
  for (let index = 1; index < lines.length; index++) {
    const before = lines[index - 1] as string;
    const line = lines[index] as string;
    const wrapped = before.trim() !== "" && line.trim() !== "" && !structuralLine.test(before) && !structuralLine.test(line);
    joined += (wrapped ? " " : "\n") + line;
  }
  const ranges: { start: number; end: number; text: string }[] = [];
  for (const segment of sentenceSegmenter.segment(joined)) {
    const leading = segment.segment.length - segment.segment.trimStart().length;
    const trimmed = segment.segment.trim();
    if (trimmed === "") continue;
    const start = segment.index + leading;
    ranges.push({ start, end: start + trimmed.length, text: trimmed });
  }
  return ranges;
}

/**
 * The sentences of `passage` that `statements` (the answer's text citing it) were drawn from: for
 * each sentence of each statement, the passage sentence holding the largest share of its analysed
 * terms, when that share is at least {@link citedSentenceMinimumOverlap}. Ranges in passage order,
 * each once.
 */
export function citedSentences(
  passage: string,
  statements: readonly string[],
  analyzer: Analyzer = defaultAnalyzer,
): { start: number; end: number }[] {
  const candidates = sentenceRanges(passage).map((range) => ({ ...range, terms: new Set(analyzer.analyze(range.text)) }));
  const chosen = new Set<number>();
  for (const statement of statements) {
    for (const { text } of sentenceRanges(statement)) {
      const terms = [...new Set(analyzer.analyze(text))];
      if (terms.length === 0) continue;
      let best = -1;
      let bestShare = 0;
      candidates.forEach((candidate, index) => {
        const share = terms.filter((term) => candidate.terms.has(term)).length / terms.length;
        if (share > bestShare) {
          best = index;
          bestShare = share;
        }
      });
      if (best >= 0 && bestShare >= citedSentenceMinimumOverlap) chosen.add(best);
    }
  }
  return [...chosen]
    .sort((left, right) => left - right)
    .map((index) => {
      const { start, end } = candidates[index] as { start: number; end: number };
      return { start, end };
    });
}

/**
 * Makes the file labels of an answer's sources distinct: sources of one file name from different
 * documents show their document ids, and two sources of one document at the same place add their
 * chunk (`section Vacation, chunk 2`).
 */
function distinguishLabels(sources: UiSource[], chunkOf: (source: UiSource) => number | undefined): void {
  const documentsOf = new Map<string, Set<string>>();
  for (const source of sources) documentsOf.set(source.fileName, (documentsOf.get(source.fileName) ?? new Set()).add(source.docId));
  for (const source of sources)
    if ((documentsOf.get(source.fileName)?.size ?? 0) > 1 && source.docId !== "") source.fileName = source.docId;
  const count = new Map<string, number>();
  const label = (source: UiSource) => `${source.fileName}\u0000${source.location}`;
  for (const source of sources) count.set(label(source), (count.get(label(source)) ?? 0) + 1);
  for (const source of sources) {
    const chunk = chunkOf(source);
    if ((count.get(label(source)) ?? 0) > 1 && chunk !== undefined) {
      source.location = source.location === "" ? `chunk ${chunk}` : `${source.location}, chunk ${chunk}`;
    }
  }
}

/**
 * Maps a `predict` result to what the page shows. Keys cited but absent from `sources` are
 * dropped (the service has already removed unknown keys; this is a second guard).
 */
export function uiAnswer(result: PredictResult): UiAnswer {
  const numbers = new Map<string, number>();
  const sources: UiSource[] = [];
  /** The statements citing each source key (the text before each citation, back to the one before). */
  const statements = new Map<string, string[]>();
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
        cited: [],
        docId: typeof source.metadata.doc_id === "string" ? source.metadata.doc_id : "",
      });
    }
    return number;
  };
  const segments = (text: string): AnswerSegment[] => {
    const marked = replaceCitations(text, (keys) => `${mark}${keys.join(",")}${mark}`);
    const parts = marked.split(mark);
    return parts
      .map((part, index): AnswerSegment | undefined => {
        if (index % 2 === 0) return part === "" ? undefined : { text: part };
        const keys = part.split(",");
        const statement = (parts[index - 1] ?? "").trim();
        for (const key of keys) if (statement !== "") statements.set(key, [...(statements.get(key) ?? []), statement]);
        const cite = keys.map(numberOf).filter((number) => number !== undefined);
        return cite.length > 0 ? { cite } : undefined;
      })
      .filter((segment) => segment !== undefined);
  };
  const { answer } = result;
  const callout = segments(answer.callout_answer);
  const positives = answer.positive_list.map(segments);
  const caveats = answer.negative_list.map(segments);
  const information = answer.info_list.map(segments);
  // The service flags abstentions (`abstained`, `abstentionReason`); the spec's empty-context
  // answer counts as one too, for results of services that predate the flag.
  const abstained = result.abstained || result.answerMode === "empty-context" || answer.callout_answer.trim() === noInformationSentence;
  for (const source of sources) source.cited = citedSentences(source.passage, statements.get(source.key) ?? []);
  distinguishLabels(sources, (source) => {
    const chunk = result.sources[source.key]?.metadata.chunk_index;
    return typeof chunk === "number" ? chunk : undefined;
  });
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
    abstentionReason: result.abstentionReason,
    totalMs: result.timings.totalMs,
  };
}
