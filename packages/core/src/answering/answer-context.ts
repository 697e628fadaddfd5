/**
 * The context an answer is written from: the chosen chunks, each under a source key `doc_<n>`
 * (built by `buildContext`). Types only, so the request state and the answerer can name them.
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
