/**
 * The citation check after generation: every cited statement of an answer must be supported by
 * the chunk it cites. A statement is the text before a `[Source: ...]` marker (back to the
 * previous marker or the start of the item); it is supported by a cited source when it appears
 * in the source's title and text (case and spacing aside), or when at least `minimumOverlap` of
 * its analysed terms occur there (entailment by token overlap, the lexical baseline of
 * recognising textual entailment: Glickman, Dagan & Koppel, 2005, "Web based probabilistic
 * textual entailment"). The extractive answerer quotes its sources, so its citations always pass;
 * a model's paraphrase passes when it keeps the source's words.
 */

import type { PredictState } from "../pipeline/request-state.js";
import type { Stage } from "../pipeline/stage.js";
import type { Analyzer } from "../text/analyzer.js";
import type { Answer, Source, UnsupportedCitation } from "./answer.js";
import { sourceText } from "./build-context.js";
import { citationMarkerPattern, parseCitationKeys } from "./citations.js";

export type { UnsupportedCitation } from "./answer.js";

/** Settings of {@link checkCitations}. */
export interface CitationCheckSettings {
  analyzer: Analyzer;
  /** `CITATION_MIN_OVERLAP`: share of a statement's terms the cited source must contain; default 0.6. */
  minimumOverlap?: number | undefined;
}

/** The statements of `answer` that a source they cite does not support, in order. */
export function checkCitations(
  answer: Answer,
  sources: Readonly<Record<string, Source>>,
  settings: CitationCheckSettings,
): UnsupportedCitation[] {
  const minimumOverlap = settings.minimumOverlap ?? 0.6;
  const unsupported: UnsupportedCitation[] = [];
  const sourceTerms = new Map<string, Set<string>>();
  const termsOf = (key: string, source: Source) => {
    let terms = sourceTerms.get(key);
    if (!terms) sourceTerms.set(key, (terms = new Set(settings.analyzer.analyze(sourceText(source)))));
    return terms;
  };
  const items = [answer.callout_answer, ...answer.positive_list, ...answer.negative_list, ...answer.info_list];
  for (const item of items) {
    let start = 0;
    for (const match of item.matchAll(citationMarkerPattern())) {
      const text = item.slice(start, match.index).trim();
      start = (match.index ?? 0) + match[0].length;
      if (text === "") continue;
      for (const key of parseCitationKeys(match[1] ?? "")) {
        const source = sources[key];
        if (!source) continue;
        if (flatten(`${source.title} ${source.page_content}`).includes(flatten(text))) continue;
        const terms = [...new Set(settings.analyzer.analyze(text))];
        if (terms.length === 0) continue;
        const present = termsOf(key, source);
        const overlap = terms.filter((term) => present.has(term)).length / terms.length;
        if (overlap < minimumOverlap) unsupported.push({ key, text, overlap });
      }
    }
  }
  return unsupported;
}

/** Lower case, whitespace collapsed. */
function flatten(text: string): string {
  return text.toLowerCase().replace(/\s+/g, " ").trim();
}

/**
 * Stage `check-citations` (after `resolve-citations`): checks that every cited statement of the
 * answer is supported by the chunk it cites (it appears there, or `CITATION_MIN_OVERLAP` of its
 * terms do; `checkCitations`). The statements that fail are reported as `unsupported_citations`
 * in the response and the PERF `rag_end` line; the answer itself is left as it is.
 *
 * Writes `unsupportedCitations`.
 */
export const checkCitationsStage: Stage<PredictState> = {
  name: "check-citations",
  phase: "post",
  run(state, runtime) {
    if (!state.answer) return;
    state.unsupportedCitations = checkCitations(state.answer, state.sources, {
      analyzer: runtime.analyzer,
      minimumOverlap: runtime.config.answering.citationMinOverlap,
    });
  },
};
