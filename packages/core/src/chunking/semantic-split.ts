/**
 * Semantic splitting (`USE_SEMANTIC_SPLIT`): cut where the meaning changes rather than at a
 * character count. The method is the "percentile" breakpoint method of Kamradt's semantic
 * chunking (as in LangChain Python's `SemanticChunker`):
 *
 * 1. Split the text into sentences; embed each sentence together with its neighbours (a window
 *    of one sentence on each side) to smooth noise.
 * 2. Compute the cosine distance between consecutive windows.
 * 3. Cut after every sentence whose distance to the next is above the `breakpointPercentile`
 *    (default 95th) percentile of all distances in the text.
 * 4. Pieces longer than `CHUNK_SIZE` are split again with the recursive splitter; consecutive
 *    pieces shorter than `minimumChars` are merged, so chunks stay usable.
 */
import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import { RecursiveCharacterTextSplitter } from "@langchain/textsplitters";
import { cosineSimilarity } from "../embeddings/cosine-similarity.js";
import { splitSentences } from "../text/split-sentences.js";

/** Settings of {@link createSemanticSplit}. */
export interface SemanticSplitSettings {
  embeddings: EmbeddingsInterface;
  chunkSize: number;
  chunkOverlap: number;
  /** Percentile (0 to 100) of adjacent-sentence distances above which a cut is made; default 95. */
  breakpointPercentile?: number;
  /** Pieces shorter than this many characters are merged with the next; default chunkSize / 4. */
  minimumChars?: number;
}

/** Returns a split function for `chunkDocument` that cuts at semantic breakpoints. */
export function createSemanticSplit(settings: SemanticSplitSettings): (text: string) => Promise<string[]> {
  const recursive = new RecursiveCharacterTextSplitter({ chunkSize: settings.chunkSize, chunkOverlap: settings.chunkOverlap });
  const percentile = settings.breakpointPercentile ?? 95;
  const minimumChars = settings.minimumChars ?? Math.floor(settings.chunkSize / 4);
  return async (text: string) => {
    const sentences = splitSentences(text);
    if (sentences.length < 3) return recursive.splitText(text);
    const windows = sentences.map((_, index) => sentences.slice(Math.max(0, index - 1), index + 2).join(" "));
    const vectors = await settings.embeddings.embedDocuments(windows);
    const distances = vectors.slice(1).map((vector, index) => 1 - cosineSimilarity(vectors[index] as number[], vector));
    const threshold = percentileOf(distances, percentile);
    const pieces: string[] = [];
    let current: string[] = [];
    sentences.forEach((sentence, index) => {
      current.push(sentence);
      const distance = distances[index];
      if (distance !== undefined && distance > threshold) {
        pieces.push(current.join(" "));
        current = [];
      }
    });
    if (current.length > 0) pieces.push(current.join(" "));
    const merged: string[] = [];
    for (const piece of pieces) {
      const last = merged.at(-1);
      if (last !== undefined && last.length < minimumChars && last.length + piece.length + 1 <= settings.chunkSize)
        merged[merged.length - 1] = `${last} ${piece}`;
      else merged.push(piece);
    }
    const chunks: string[] = [];
    for (const piece of merged) chunks.push(...(piece.length > settings.chunkSize ? await recursive.splitText(piece) : [piece]));
    return chunks;
  };
}

/** Linear-interpolated percentile (0 to 100) of `values`. */
function percentileOf(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.POSITIVE_INFINITY;
  const sorted = [...values].sort((left, right) => left - right);
  const position = (p / 100) * (sorted.length - 1);
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  return (sorted[lower] as number) + ((sorted[upper] as number) - (sorted[lower] as number)) * (position - lower);
}
