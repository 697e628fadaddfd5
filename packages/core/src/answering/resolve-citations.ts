/**
 * Citation post-processing (spec processing order step 8): resolve `[Source: <key>]` markers to
 * the `sources` map, drop citations of keys that were never in the context (a source is never
 * invented), and remove sources the answer does not cite.
 */

import { DocqaError } from "../errors/docqa-error.js";
import type { PredictState } from "../pipeline/request-state.js";
import type { Stage } from "../pipeline/stage.js";
import type { Answer, Source } from "./answer.js";
import { formatCitation, replaceCitations, tidyAfterCitations } from "./citations.js";

/** Outcome of {@link resolveCitations}. */
export interface ResolvedCitations {
  /** The answer with unknown keys removed from its markers. */
  answer: Answer;
  /** Only the cited sources. */
  sources: Record<string, Source>;
  /** Keys the answer cited that were not in the context, in order of appearance. */
  unknownKeys: string[];
}

/**
 * Resolves the citations of `answer` against `sources`.
 *
 * @example
 * ```ts
 * resolveCitations({ ...answer, callout_answer: "Ten days [Source: doc_2] [Source: doc_9]" }, sources);
 * // callout "Ten days [Source: doc_2]", sources { doc_2 }, unknownKeys ["doc_9"]
 * ```
 */
export function resolveCitations(answer: Answer, sources: Readonly<Record<string, Source>>): ResolvedCitations {
  const unknownKeys: string[] = [];
  const cited = new Set<string>();
  const rewrite = (text: string): string =>
    tidyAfterCitations(
      replaceCitations(text, (keys) => {
        const known = keys.filter((key) => Object.hasOwn(sources, key));
        for (const key of keys) if (!known.includes(key) && !unknownKeys.includes(key)) unknownKeys.push(key);
        for (const key of known) cited.add(key);
        return formatCitation(known);
      }),
    );
  const resolved: Answer = {
    callout_answer: rewrite(answer.callout_answer),
    positive_list: answer.positive_list.map(rewrite).filter((item) => item !== ""),
    negative_list: answer.negative_list.map(rewrite).filter((item) => item !== ""),
    info_list: answer.info_list.map(rewrite).filter((item) => item !== ""),
    keywords: answer.keywords.map((keyword) => keyword.trim()).filter((keyword) => keyword !== ""),
  };
  const kept: Record<string, Source> = {};
  for (const key of Object.keys(sources)) if (cited.has(key)) kept[key] = sources[key] as Source;
  return { answer: resolved, sources: kept, unknownKeys };
}

/**
 * Stage `resolve-citations` (spec `POST /predict` step 8): `[Source: <key>]` markers are resolved
 * to the `sources` map, citations of keys never in the context are dropped (a source is never
 * invented), and sources the answer does not cite are removed (`resolveCitations`).
 *
 * Writes `answer`, `sources` and `droppedCitations`.
 */
export const resolveCitationsStage: Stage<PredictState> = {
  name: "resolve-citations",
  phase: "post",
  run(state) {
    if (!state.generated) {
      throw new DocqaError("internal_error", "no answer was generated before citations were resolved (is the generate stage missing?)", {
        component: "pipeline",
      });
    }
    const resolved = resolveCitations(state.generated.answer, state.context.sources);
    state.answer = resolved.answer;
    state.sources = resolved.sources;
    state.droppedCitations = resolved.unknownKeys;
  },
};
