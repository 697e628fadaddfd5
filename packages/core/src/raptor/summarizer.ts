/**
 * Summarisers for RAPTOR cluster summaries. With a language model configured, summaries come
 * from the model; otherwise from {@link createExtractiveSummarizer}.
 */
import { type Analyzer, createEnglishAnalyzer } from "../text/analyzer.js";
import { splitSentences } from "../text/split-sentences.js";
import { dot } from "./cluster-vectors.js";
import { termVectors } from "./term-vectors.js";

/** Summarises a group of related passages into one passage. */
export interface Summarizer {
  /** Name used in logs and in summary metadata, for example `extractive`. */
  readonly name: string;
  summarize(passages: readonly string[], signal?: AbortSignal): Promise<string>;
}

/**
 * Whether a sentence is a fragment (a heading, a table cell): fewer than five words, or fewer
 * than eight without closing punctuation. `key: value` lines are facts, not fragments.
 */
export function isFragment(sentence: string): boolean {
  if (/^[\w.-]{1,40}: \S/.test(sentence)) return false;
  const words = sentence.split(/\s+/).length;
  return words < 5 || (words < 8 && !/[.!?:;)"'\u201d]$/.test(sentence));
}

/** Similarity above which a sentence counts as a repeat of one already chosen. */
const duplicateSimilarity = 0.9;

/** Settings of {@link createExtractiveSummarizer}. */
export interface ExtractiveSummarizerSettings {
  /** Target length of a summary in characters (`RAPTOR_SUMMARY_CHARS`); default 800. */
  maximumChars?: number;
  /** MMR trade-off between centrality and novelty, in [0, 1]; default 0.7. */
  lambda?: number;
  analyzer?: Analyzer;
}

/**
 * An extractive summariser: selects sentences by maximal marginal relevance (Carbonell &
 * Goldstein, 1998, "The Use of MMR, Diversity-Based Reranking for Reordering Documents and
 * Producing Summaries") on term-frequency vectors, where relevance is a sentence's cosine similarity to the centroid of the
 * other sentences (a sentence that represents the group) and redundancy its highest similarity to a
 * sentence already chosen. Sentences are chosen until the summary reaches `maximumChars`, then
 * put back in their original order. When all sentences fit in `maximumChars` they are all kept.
 * Fragments ({@link isFragment}) and near-repeats (cosine above 0.9) of a chosen sentence are not
 * candidates.
 */
export function createExtractiveSummarizer(settings: ExtractiveSummarizerSettings = {}): Summarizer {
  const maximumChars = settings.maximumChars ?? 800;
  const lambda = settings.lambda ?? 0.7;
  const analyzer = settings.analyzer ?? createEnglishAnalyzer();
  return {
    name: "extractive",
    async summarize(passages) {
      const sentences = passages.flatMap((passage) => splitSentences(passage)).filter((sentence) => !isFragment(sentence));
      if (sentences.length === 0) return passages.join(" ").slice(0, maximumChars).trim();
      const unique = [...new Set(sentences)];
      if (unique.join(" ").length <= maximumChars) return unique.join(" ");
      const vectors = termVectors(sentences, analyzer, 512, "tf");
      const centroid = new Float32Array(vectors[0]?.length ?? 0);
      for (const vector of vectors)
        for (let index = 0; index < vector.length; index++) centroid[index] = (centroid[index] as number) + (vector[index] as number);
      const centroidNormSquared = dot(centroid, centroid);
      // Leave-one-out centrality: similarity to the centroid of the other sentences, so an outlier
      // gets no credit for its own contribution. With unit vectors v and C the sum of all:
      // cos(v, C − v) = (v·C − 1) / |C − v|, and |C − v|² = |C|² − 2 v·C + 1.
      const centrality = vectors.map((vector) => {
        const similarity = dot(vector, centroid);
        const norm = Math.sqrt(Math.max(0, centroidNormSquared - 2 * similarity + 1));
        return norm === 0 ? 0 : (similarity - 1) / norm;
      });
      // Highest similarity of each sentence to any chosen sentence, updated after each choice.
      const redundancy = new Float64Array(sentences.length);
      const chosen: number[] = [];
      const taken = new Uint8Array(sentences.length);
      let length = 0;
      const seen = new Set<string>();
      while (length < maximumChars && chosen.length < sentences.length) {
        let best = -1;
        let bestScore = Number.NEGATIVE_INFINITY;
        for (let index = 0; index < sentences.length; index++) {
          if (taken[index] === 1 || (redundancy[index] as number) > duplicateSimilarity || seen.has(sentences[index] as string)) continue;
          const score = lambda * (centrality[index] as number) - (1 - lambda) * (redundancy[index] as number);
          if (score > bestScore) {
            bestScore = score;
            best = index;
          }
        }
        if (best < 0) break;
        const sentence = sentences[best] as string;
        if (length > 0 && length + sentence.length > maximumChars * 1.2) break;
        chosen.push(best);
        taken[best] = 1;
        seen.add(sentence);
        length += sentence.length + 1;
        const picked = vectors[best] as Float32Array;
        for (let index = 0; index < sentences.length; index++) {
          if (taken[index] === 1) continue;
          const similarity = dot(vectors[index] as Float32Array, picked);
          if (similarity > (redundancy[index] as number)) redundancy[index] = similarity;
        }
      }
      return chosen
        .sort((left, right) => left - right)
        .map((index) => sentences[index])
        .join(" ");
    },
  };
}
