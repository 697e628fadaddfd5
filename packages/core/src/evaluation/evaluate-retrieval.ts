/**
 * Retrieval evaluation of a docqa service on a BEIR data set: the corpus is ingested into a
 * fresh organisation (readable by everyone), every judged query is searched, and chunk rankings
 * become document rankings: each document takes the rank of its best chunk, and a RAPTOR summary
 * node contributes the documents it summarises, in order, at its rank. Each query asks for
 * `chunkDepth` chunks (default 4 × `depth`), so that the ranking holds `depth` distinct documents
 * (recall@100 counts documents, and a document often has several chunks among the best);
 * a configuration with fewer candidates yields a shorter ranking.
 */
import { isSummaryChunk } from "../raptor/build-raptor-nodes.js";
import type { RagService, SearchRequest } from "../service/rag-service.js";
import type { BeirDataset } from "./beir-dataset.js";
import { meanMetrics, type RetrievalMetrics } from "./retrieval-metrics.js";

/** Options of {@link evaluateRetrieval}. */
export interface EvaluateRetrievalOptions {
  /** Organisation used for the corpus; default `beir-eval`. */
  orgId?: string;
  /** Documents per upsert call (one RAPTOR document set); default 500. */
  batchSize?: number;
  /** Documents kept in each query's ranking; default 100 (for recall@100). */
  depth?: number;
  /** Chunks asked for per query (the search's `limit`); default 4 × `depth`. */
  chunkDepth?: number;
  /** Skip ingestion (the corpus is already in the organisation). */
  skipIngestion?: boolean;
  /** Retrieval settings of this run (weights, normalisation, fusion); default the service's. */
  retrieval?: SearchRequest["retrieval"];
  /** Rerank (default the service's `USE_RERANKER`). */
  rerank?: boolean;
  /** Evaluate only the first `limit` queries. */
  limit?: number;
  /** Called at the start of each phase (`done` 0), after each ingested batch and after each query. */
  onProgress?: (phase: "ingest" | "query", done: number, total: number) => void;
}

/** Result of {@link evaluateRetrieval}. */
export interface RetrievalEvaluation extends RetrievalMetrics {
  /** Per query: the ranked document ids (top `depth`). */
  rankings: Map<string, string[]>;
  /** Milliseconds spent ingesting and querying. */
  ingestMs: number;
  queryMs: number;
}

const evaluator = { userName: "evaluator@docqa.invalid", roles: [], groups: [] };

/** Ingests the corpus (unless skipped) and evaluates every judged query. */
export async function evaluateRetrieval(
  service: RagService,
  dataset: BeirDataset,
  options: EvaluateRetrievalOptions = {},
): Promise<RetrievalEvaluation> {
  const orgId = options.orgId ?? "beir-eval";
  const batchSize = options.batchSize ?? 500;
  const depth = options.depth ?? 100;
  const chunkDepth = options.chunkDepth ?? 4 * depth;
  const ingestStarted = performance.now();
  if (!options.skipIngestion) {
    options.onProgress?.("ingest", 0, dataset.corpus.length);
    for (let start = 0; start < dataset.corpus.length; start += batchSize) {
      const documents = Object.fromEntries(
        dataset.corpus
          .slice(start, start + batchSize)
          .map((document) => [
            document.id,
            { title: document.title, content: document.text || document.title || "(empty)", metadata: { acl: "|user:_all_|" } },
          ]),
      );
      await service.upsert({ orgId, principal: evaluator, uploader: evaluator.userName, documents });
      options.onProgress?.("ingest", Math.min(start + batchSize, dataset.corpus.length), dataset.corpus.length);
    }
  }
  const ingestMs = performance.now() - ingestStarted;
  const queryStarted = performance.now();
  const rankings = new Map<string, string[]>();
  const queries = options.limit === undefined ? dataset.queries : dataset.queries.slice(0, options.limit);
  options.onProgress?.("query", 0, queries.length);
  for (const [index, query] of queries.entries()) {
    const { results } = await service.search({
      orgId,
      principal: evaluator,
      query: query.text,
      limit: chunkDepth,
      retrieval: options.retrieval,
      rerank: options.rerank,
    });
    const ranking: string[] = [];
    const seen = new Set<string>();
    for (const { chunk } of results) {
      const documents = isSummaryChunk(chunk)
        ? ((chunk.metadata.raptor_documents as { doc_id: string }[] | undefined) ?? []).map((document) => document.doc_id)
        : [chunk.docId];
      for (const docId of documents) {
        if (seen.has(docId) || ranking.length >= depth) continue;
        seen.add(docId);
        ranking.push(docId);
      }
    }
    rankings.set(query.id, ranking);
    options.onProgress?.("query", index + 1, queries.length);
  }
  const queryMs = performance.now() - queryStarted;
  const metrics = meanMetrics(
    queries.map((query) => ({ ranking: rankings.get(query.id) ?? [], judgements: dataset.qrels.get(query.id) ?? new Map() })),
  );
  return { ...metrics, rankings, ingestMs, queryMs };
}
