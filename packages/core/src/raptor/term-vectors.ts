/**
 * Term vectors by feature hashing (Weinberger et al., 2009), for clustering when no embedding
 * model is available and for the extractive summariser: sublinear term frequency (1 + ln tf),
 * times IDF over the given texts unless `weighting` is `tf`, hashed into `dimension` buckets with
 * a sign bit, unit length. Plain TF suits centrality within one topical group, where IDF would
 * discount exactly the shared topic words.
 */
import type { Analyzer } from "../text/analyzer.js";
import { normalize } from "./cluster-vectors.js";

/** Hashed TF-IDF vectors of `texts`, one per text. */
export function termVectors(
  texts: readonly string[],
  analyzer: Analyzer,
  dimension = 512,
  weighting: "tfidf" | "tf" = "tfidf",
): Float32Array[] {
  const termLists = texts.map((text) => analyzer.analyze(text));
  const documentFrequency = new Map<string, number>();
  for (const terms of termLists) for (const term of new Set(terms)) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
  return termLists.map((terms) => {
    const frequencies = new Map<string, number>();
    for (const term of terms) frequencies.set(term, (frequencies.get(term) ?? 0) + 1);
    const vector = new Float32Array(dimension);
    for (const [term, frequency] of frequencies) {
      const idf = weighting === "tf" ? 1 : Math.log(1 + texts.length / (documentFrequency.get(term) as number));
      const hash = fnv1a(term);
      const bucket = hash % dimension;
      vector[bucket] = (vector[bucket] as number) + ((hash >>> 31) & 1 ? -1 : 1) * (1 + Math.log(frequency)) * idf;
    }
    return normalize(vector);
  });
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}
