/**
 * Context construction (spec processing order step 8): the retrieved chunks, each under a
 * source key `doc_<n>` (1-based, in rank order), capped at `MAX_DOC_CHARS` per chunk and
 * `MAX_CONTEXT_CHARS` in total. The same keys name the `sources` map, so a citation
 * `[Source: doc_n]` resolves to exactly one context entry.
 */

import type { PredictState } from "../pipeline/request-state.js";
import type { Stage } from "../pipeline/stage.js";
import type { ChunkRecord } from "../stores/chunk-record.js";
import type { Source } from "./answer.js";
import { type AnswerContext, type ContextEntry, sectionPathOf } from "./answer-context.js";
import { formatCitation } from "./citations.js";

export type { AnswerContext, ContextEntry } from "./answer-context.js";

/** Limits of {@link buildContext}. */
export interface ContextLimits {
  /** `MAX_DOC_CHARS`: characters of one chunk. */
  maxDocChars: number;
  /** `MAX_CONTEXT_CHARS`: characters of the whole context block. */
  maxContextChars: number;
}

/**
 * The file a chunk's document was ingested from (`metadata.filename`); for a document stored
 * through `/upsert`, which has no file, its document id stands in (without the `#<n>` of a record).
 */
export function fileNameOf(chunk: Pick<ChunkRecord, "docId" | "metadata">): string {
  const filename = chunk.metadata.filename;
  return typeof filename === "string" && filename !== "" ? filename : chunk.docId.replace(/#\d+$/, "");
}

/**
 * A context block's heading line: the chunk's title, then its section's heading path
 * (`metadata.section`, "Changelog > 2.4.0 (2026-03-02) > Added") when it has one, so that a
 * reader (and a model) sees what the headings above the passage say.
 */
export function headingOf(chunk: Pick<ChunkRecord, "title" | "metadata">): string {
  const section = sectionPathOf(chunk.metadata);
  return section === undefined ? chunk.title : `${chunk.title} \u2014 ${section}`;
}

/**
 * The text a source states for grounding and citation checks: its heading line ({@link headingOf})
 * and its passage.
 */
export function sourceText(source: Pick<Source, "title" | "page_content" | "metadata">): string {
  const section = sectionPathOf(source.metadata);
  return section === undefined ? `${source.title}\n${source.page_content}` : `${source.title}\n${section}\n${source.page_content}`;
}

/** Builds the context from ranked chunks. Chunks that no longer fit are left out, not cut mid-way. */
export function buildContext(ranked: readonly { chunk: ChunkRecord; score: number }[], limits: ContextLimits): AnswerContext {
  const entries: ContextEntry[] = [];
  const sources: Record<string, Source> = {};
  const blocks: string[] = [];
  let used = 0;
  for (const { chunk, score } of ranked) {
    const key = `doc_${entries.length + 1}`;
    const text = chunk.text.length > limits.maxDocChars ? `${chunk.text.slice(0, limits.maxDocChars)}…` : chunk.text;
    const block = `${formatCitation([key])} ${headingOf(chunk)}\n${text}`;
    if (entries.length > 0 && used + block.length > limits.maxContextChars) break;
    used += block.length + 2;
    blocks.push(block);
    entries.push({ key, chunk, text, score });
    sources[key] = {
      title: chunk.title,
      source: chunk.source,
      page_content: chunk.text,
      metadata: {
        ...chunk.metadata,
        filename: fileNameOf(chunk),
        owner_id: chunk.ownerId,
        acl: chunk.acl,
        doc_id: chunk.docId,
        chunk_id: chunk.id,
        score,
      },
    };
  }
  return { entries, sources, text: blocks.join("\n\n") };
}

/**
 * Stage `build-context` (spec `POST /predict` step 8): the selected chunks become the context,
 * each under a source key `doc_<n>` in rank order, within `MAX_DOC_CHARS` per chunk and
 * `MAX_CONTEXT_CHARS` in all (`buildContext`).
 *
 * Writes `context`.
 */
export const buildContextStage: Stage<PredictState> = {
  name: "build-context",
  phase: "context",
  run(state, runtime) {
    state.context = buildContext(state.chunks, runtime.config.answering);
  },
};
