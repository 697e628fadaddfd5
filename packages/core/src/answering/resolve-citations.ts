/**
 * Citation post-processing (spec processing order step 8): resolve `[Source: <key>]` markers to
 * the `sources` map, drop citations of keys that were never in the context (a source is never
 * invented), and remove sources the answer does not cite.
 */
import type { Answer, Source } from "./answer.js";

const citationPattern = /\[\s*Source\s*:\s*([^\]]*)\]/gi;

/** Outcome of {@link resolveCitations}. */
export interface ResolvedCitations {
  /** The answer with unknown keys removed from its markers. */
  answer: Answer;
  /** Only the cited sources. */
  sources: Record<string, Source>;
  /** Keys the answer cited that were not in the context, in order of appearance. */
  unknownKeys: string[];
}

/** Every key cited in `text`, in order of first appearance. Markers may list several keys (`[Source: doc_1, doc_2]`). */
export function citedKeys(text: string): string[] {
  const keys: string[] = [];
  for (const match of text.matchAll(citationPattern)) {
    for (const key of (match[1] ?? "").split(/[,;\s]+/)) {
      if (key !== "" && !keys.includes(key)) keys.push(key);
    }
  }
  return keys;
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
    text
      .replace(citationPattern, (_marker, list: string) => {
        const keys = list.split(/[,;\s]+/).filter((key) => key !== "");
        const known = keys.filter((key) => Object.hasOwn(sources, key));
        for (const key of keys) if (!known.includes(key) && !unknownKeys.includes(key)) unknownKeys.push(key);
        for (const key of known) cited.add(key);
        return known.length === 0 ? "" : `[Source: ${known.join(", ")}]`;
      })
      .replace(/[ \t]{2,}/g, " ")
      .replace(/[ \t]+([.,;:!?])/g, "$1")
      .trim();
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
