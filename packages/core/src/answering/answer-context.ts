/**
 * The context an answer is written from: the chosen chunks, each under a source key `doc_<n>`
 * (built by `buildContext`). Types, and the reading of a chunk's section, so that the request state
 * and the answerer can name them without the stage.
 */
import type { ChunkRecord } from "../stores/chunk-record.js";
import type { Source } from "./answer.js";

/** A retrieved chunk with its fused score, as the answerer receives it. */
export interface ContextEntry {
  /** Source key, `doc_<n>`. */
  key: string;
  chunk: ChunkRecord;
  /** The chunk's text as placed in the context (possibly truncated). */
  text: string;
  /** Fused retrieval score. */
  score: number;
}

/** The context of one answer. */
export interface AnswerContext {
  entries: ContextEntry[];
  /** Every entry as a Source, keyed like the entries. */
  sources: Record<string, Source>;
  /** The context block given to a language model: each entry preceded by its marker. */
  text: string;
}

/**
 * A chunk's section heading path (`metadata.section` as the Markdown and DOCX loaders write it,
 * "Changelog > 2.4.0 (2026-03-02) > Added"), trimmed; undefined when it has none.
 */
export function sectionPathOf(metadata: Readonly<Record<string, unknown>>): string | undefined {
  const section = metadata.section;
  return typeof section === "string" && section.trim() !== "" ? section.trim() : undefined;
}
