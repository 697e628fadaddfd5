/**
 * The corpus of the scale benchmark (`bench/scale.ts`): real text, repeated to any size with
 * distinct ids, and vectors that are real embeddings for a sample and synthetic for the rest.
 *
 * - **Text.** The base passages are every SciFact abstract (title and text, cut into passages of at
 *   most {@link passageChars} characters at sentence ends) and every paragraph of the SQuAD 2.0 and
 *   XQuAD retrieval views in ../shared/data: about 13,000 real passages. Chunk `n` holds base
 *   passage `n mod B`; chunk and document ids are distinct (`c<n>`, `d<n / 4>`: four chunks per
 *   document). Term statistics are those of the real corpora, each term's document frequency
 *   multiplied by the number of repetitions.
 * - **Vectors.** The first {@link realSampleSize} base passages and the queries are embedded for
 *   real with the local model (bge-small-en-v1.5 or all-MiniLM-L6-v2, int8, 384 dimensions, from
 *   ../shared/data/models), once, cached in bench/.cache/. Every chunk's vector is synthetic: the
 *   real vector of sample passage `(n mod B) mod S` plus isotropic Gaussian noise (standard
 *   deviation {@link noiseDeviation} per component, so cosine about 0.8 with it), normalised. The
 *   vectors thus have the neighbourhood structure of real embeddings (clusters around real
 *   passages), none is a copy of another, and they are generated again from a seed in any process.
 * - **Access.** Every chunk is readable by group `staff`, which the benchmark's user holds, so
 *   every search runs the ACL pre-filter.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { splitSentences } from "@docqa/core/retrieval";
import type { ChunkRecord, DocumentVersion } from "@docqa/core/stores";
import { mulberry32, sharedDataPath } from "@docqa/core/testing";
import { benchmarkModel, loadEmbeddings } from "./local-model.ts";

/** Longest base passage, in characters (the default `CHUNK_SIZE` is 1,000). */
export const passageChars = 1000;
/** Base passages embedded for real (S). */
export const realSampleSize = 5000;
/** Per-component standard deviation of the noise added to a sample vector (cosine with it about 0.8). */
export const noiseDeviation = 0.035;
/** Chunks per document. */
export const chunksPerDocument = 4;
/** The organisation every chunk belongs to. */
export const scaleOrganisation = "scale";
/** The benchmark's reader: group `staff` reads every chunk. */
export const scalePrincipal = { userName: "reader@example.org", roles: [], groups: ["staff"] };

/** What the children of the benchmark share: base passages, the sample's and the queries' real vectors. */
export interface ScaleCorpus {
  passages: { title: string; text: string }[];
  /** Real vectors of the first {@link realSampleSize} passages, row after row. */
  sample: Float32Array;
  queries: string[];
  /** Real vectors of the queries, row after row. */
  queryVectors: Float32Array;
  dimension: number;
  /** The model that embedded the sample and the queries. */
  modelId: string;
}

function jsonLines<T>(path: string): T[] {
  return readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as T);
}

/** Cuts `text` into passages of at most `passageChars` characters at sentence ends. */
function passagesOf(title: string, text: string): { title: string; text: string }[] {
  const out: { title: string; text: string }[] = [];
  let current = "";
  for (const sentence of splitSentences(text)) {
    if (current !== "" && current.length + sentence.length + 1 > passageChars) {
      out.push({ title, text: current });
      current = "";
    }
    current = current === "" ? sentence.slice(0, passageChars) : `${current} ${sentence}`;
  }
  if (current !== "") out.push({ title, text: current });
  return out;
}

/**
 * The base passages and the SciFact test queries, from ../shared/data (no vectors: what the BM25
 * benchmark `bench/bm25-pruning.ts` needs).
 *
 * @throws {Error} when SciFact is missing.
 */
export function readScaleTexts(): { passages: { title: string; text: string }[]; queries: string[] } {
  const scifact = sharedDataPath("ir", "scifact");
  if (!scifact) throw new Error("the scale benchmark needs ../shared/data/ir/scifact");
  const passages: { title: string; text: string }[] = [];
  for (const document of jsonLines<{ title: string; text: string }>(join(scifact, "corpus.jsonl"))) {
    passages.push(...passagesOf(document.title, document.text));
  }
  for (const set of ["squad-v2-dev-test", "squad-v2-dev-calibration", "xquad-en"]) {
    const folder = sharedDataPath("qa", set);
    if (!folder || !existsSync(join(folder, "contexts.jsonl"))) continue;
    for (const context of jsonLines<{ title: string; text: string }>(join(folder, "contexts.jsonl"))) {
      passages.push(...passagesOf(context.title, context.text));
    }
  }
  const testIds = new Set(
    readFileSync(join(scifact, "qrels", "test.tsv"), "utf8")
      .trim()
      .split("\n")
      .slice(1)
      .map((line) => line.split("\t")[0]),
  );
  const queries = jsonLines<{ _id: string; text: string }>(join(scifact, "queries.jsonl"))
    .filter((query) => testIds.has(query._id))
    .map((query) => query.text);
  return { passages, queries };
}

/**
 * The corpus, with the real vectors from bench/.cache/ (computed with the local model on first
 * use: about 5,300 texts, a few minutes on two cores).
 *
 * @throws {Error} when SciFact or the local model is missing.
 */
export async function loadScaleCorpus(): Promise<ScaleCorpus> {
  const { passages, queries } = readScaleTexts();
  const model = benchmarkModel("scale benchmark");
  if (!model) throw new Error("the scale benchmark needs a local embedding model under ../shared/data/models");
  const texts = [...passages.slice(0, realSampleSize).map((passage) => `${passage.title}\n${passage.text}`), ...queries];
  const key = createHash("sha256").update(model.id).update(model.dtype).update(JSON.stringify(texts)).digest("hex").slice(0, 16);
  const folder = join(import.meta.dirname, ".cache");
  const file = join(folder, `scale-vectors-${key}.f32`);
  let vectors: Float32Array;
  if (existsSync(file)) {
    const bytes = readFileSync(file);
    vectors = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  } else {
    console.log(`scale benchmark: embedding ${texts.length} texts with ${model.id} (cached in ${file})`);
    const embeddings = await loadEmbeddings(model);
    const documents = await embeddings.embedDocuments(texts.slice(0, realSampleSize));
    const queryVectors = await Promise.all(texts.slice(realSampleSize).map((text) => embeddings.embedQuery(text)));
    await embeddings.dispose();
    vectors = Float32Array.from([...documents, ...queryVectors].flat());
    mkdirSync(folder, { recursive: true });
    writeFileSync(file, Buffer.from(vectors.buffer));
  }
  const dimension = model.dimension;
  return {
    passages,
    sample: vectors.subarray(0, realSampleSize * dimension),
    queries,
    queryVectors: vectors.subarray(realSampleSize * dimension),
    dimension,
    modelId: model.id,
  };
}

/** Chunk `n`'s synthetic vector (see the module documentation), the same in every process. */
export function chunkVector(corpus: ScaleCorpus, n: number): Float32Array {
  const { dimension } = corpus;
  const base = (n % corpus.passages.length) % realSampleSize;
  const next = mulberry32(n * 2654435761 + 17);
  const vector = new Float32Array(dimension);
  let norm = 0;
  for (let index = 0; index < dimension; index += 2) {
    // Box-Muller: two Gaussian values per two uniform ones.
    const radius = Math.sqrt(-2 * Math.log(1 - next())) * noiseDeviation;
    const angle = 2 * Math.PI * next();
    const first = (corpus.sample[base * dimension + index] as number) + radius * Math.cos(angle);
    vector[index] = first;
    norm += first * first;
    if (index + 1 < dimension) {
      const second = (corpus.sample[base * dimension + index + 1] as number) + radius * Math.sin(angle);
      vector[index + 1] = second;
      norm += second * second;
    }
  }
  const scale = 1 / Math.sqrt(norm);
  for (let index = 0; index < dimension; index++) vector[index] = (vector[index] as number) * scale;
  return vector;
}

/** Documents `first` to `first + count - 1` (of {@link chunksPerDocument} chunks each), with their vectors. */
export function scaleDocuments(corpus: ScaleCorpus, first: number, count: number): DocumentVersion[] {
  const documents: DocumentVersion[] = [];
  for (let document = first; document < first + count; document++) {
    const docId = `d${document}`;
    const chunks: ChunkRecord[] = [];
    for (let position = 0; position < chunksPerDocument; position++) {
      const n = document * chunksPerDocument + position;
      const passage = corpus.passages[n % corpus.passages.length] as { title: string; text: string };
      chunks.push({
        id: `${docId}::${position}`,
        docId,
        chunkIndex: position,
        text: passage.text,
        title: passage.title,
        source: "scale-bench",
        ownerId: "owner@example.org",
        acl: "|group:staff|",
        metadata: {},
        contentHash: docId,
        embedding: chunkVector(corpus, n),
      });
    }
    documents.push({ docId, contentHash: docId, chunks });
  }
  return documents;
}
