/**
 * One step of the scale benchmark (`bench/scale.ts`) in a process of its own, so that each
 * figure (resident memory, time to reopen) is the process's alone:
 *
 *   node bench/scale-child.ts ingest <embedded|cluster> <chunks> <location>
 *   node bench/scale-child.ts serve <embedded|cluster> <chunks> <location>
 *
 * `location` is the data directory (embedded) or the base name of the collections and indexes
 * (cluster: Milvus at DOCQA_TEST_MILVUS_URI, the OpenSearch cluster at
 * DOCQA_TEST_OPENSEARCH_CLUSTER_URLS). Prints one JSON line, prefixed `RESULT `.
 *
 * - `ingest` writes the corpus of `bench/scale-corpus.ts` the way an ingestion worker does, chunks
 *   and vectors already made (chunking and embedding excluded: embedding 1M chunks takes hours on
 *   two cores, see docs/performance.md), 250 documents (1,000 chunks) per write: the embedded store
 *   opened for writing only, as ingestion worker threads open it; the cluster through the staged
 *   protocol (Milvus, then OpenSearch, then the registry commit).
 * - `serve` opens the stores in a fresh process (time to reopen: until the first search is
 *   answered; for the embedded store also until its HNSW graph is ready), then times `/predict`
 *   (set A) and `/api/search` (set B) in-process (the Hono apps, no sockets) with BM25 alone,
 *   vectors alone and hybrid, the queries' embeddings precomputed (embedding excluded), and
 *   measures recall@10 of the approximate vector search against exact search over the same vectors.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chatRoutes } from "@docqa/chat-api";
import { createEmbeddedStore, createRagService, type DocqaConfig, loadConfig, mintAccessToken, silentLogger } from "@docqa/core";
import { type DocumentStores, ExactVectorIndex, storesFromConfig } from "@docqa/core/stores";
import { resolveServerConfig } from "@docqa/http";
import { predictRoutes } from "@docqa/predict-api";
import { Embeddings } from "@langchain/core/embeddings";
import {
  chunksPerDocument,
  chunkVector,
  loadScaleCorpus,
  type ScaleCorpus,
  scaleDocuments,
  scaleOrganisation,
  scalePrincipal,
} from "./scale-corpus.ts";
import { percentile } from "./statistics.ts";

const [command, target, sizeText, location] = process.argv.slice(2);
const size = Number(sizeText);
const secret = "scale-bench-secret-0123456789abcdef";
/** Documents per write (1,000 chunks). */
const writeDocuments = 250;
const queriesTimed = Number(process.env.BENCH_SCALE_QUERIES ?? 300);

if (!["ingest", "serve", "reopen"].includes(command ?? "") || !["embedded", "cluster"].includes(target ?? "") || !(size > 0) || !location) {
  console.error("usage: node bench/scale-child.ts ingest|serve|reopen embedded|cluster <chunks> <data dir or base name>");
  process.exit(2);
}

/** Query embeddings looked up, not computed (the benchmark excludes embedding). */
class PrecomputedEmbeddings extends Embeddings {
  private readonly vectors = new Map<string, number[]>();
  constructor(corpus: ScaleCorpus) {
    super({});
    corpus.queries.forEach((query, index) => {
      this.vectors.set(query, Array.from(corpus.queryVectors.subarray(index * corpus.dimension, (index + 1) * corpus.dimension)));
    });
  }
  override async embedDocuments(texts: string[]): Promise<number[][]> {
    return Promise.all(texts.map((text) => this.embedQuery(text)));
  }
  override async embedQuery(text: string): Promise<number[]> {
    return this.vectors.get(text) ?? (this.vectors.values().next().value as number[]);
  }
}

function clusterEnvironment(): Record<string, string> {
  const urls = process.env.DOCQA_TEST_OPENSEARCH_CLUSTER_URLS;
  const milvus = process.env.DOCQA_TEST_MILVUS_URI;
  if (!urls || !milvus) throw new Error("the cluster target needs DOCQA_TEST_OPENSEARCH_CLUSTER_URLS and DOCQA_TEST_MILVUS_URI");
  return {
    FULLTEXT_URI: urls,
    KEYWORD_STORE: "opensearch",
    FULLTEXT_INDEX: location as string,
    FULLTEXT_SHARDS: "3",
    FULLTEXT_REPLICAS: "1",
    VECTORDB_URI: milvus,
    VECTORDB_COLLECTION: location as string,
    STORE_TIMEOUT_MS: "120000",
  };
}

function configFor(corpus: ScaleCorpus, dataDir: string, weights: { vector: number; bm25: number }): DocqaConfig {
  return loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: "silent",
    EMBED_DIMENSION: String(corpus.dimension),
    EMBED_MODEL_NAME: corpus.modelId,
    WEIGHT_VECTOR: String(weights.vector),
    WEIGHT_BM25: String(weights.bm25),
    USE_RAPTOR: "false",
    SWEEP_INTERVAL_SECONDS: "0",
    JWT_SECRET: secret,
    ...hnswEnvironment(),
    ...(target === "cluster" ? clusterEnvironment() : {}),
  });
}

/** `HNSW_CONNECTIVITY` and `HNSW_EXPANSION_SEARCH` of the benchmark's own environment, passed on to the stores. */
function hnswEnvironment(): Record<string, string> {
  const names = ["HNSW_CONNECTIVITY", "HNSW_EXPANSION_SEARCH"];
  return Object.fromEntries(names.flatMap((name) => (process.env[name] ? [[name, process.env[name]]] : [])));
}

function result(value: unknown): void {
  console.log(`RESULT ${JSON.stringify(value)}`);
}

async function ingest(corpus: ScaleCorpus): Promise<void> {
  const model = { id: corpus.modelId, dimension: corpus.dimension };
  const documentCount = Math.ceil(size / chunksPerDocument);
  let write: (documents: ReturnType<typeof scaleDocuments>) => Promise<void>;
  let close: () => Promise<void>;
  if (target === "embedded") {
    const store = createEmbeddedStore({ dataDir: location, inMemoryIndexes: false });
    write = (documents) => store.upsert(scaleOrganisation, documents, { embeddingModel: model });
    close = () => store.close();
  } else {
    const dataDir = mkdtempSync(join(tmpdir(), "docqa-scale-"));
    const stores = await storesFromConfig(configFor(corpus, dataDir, { vector: 0.5, bm25: 0.5 }), silentLogger);
    write = (documents) => stores.write(scaleOrganisation, documents, { embeddingModel: model });
    close = async () => {
      await stores.close();
      rmSync(dataDir, { recursive: true, force: true });
    };
  }
  let generating = 0;
  const started = performance.now();
  for (let first = 0; first < documentCount; first += writeDocuments) {
    const generated = performance.now();
    const documents = scaleDocuments(corpus, first, Math.min(writeDocuments, documentCount - first));
    generating += performance.now() - generated;
    await write(documents);
    if (first % 25_000 === 0) process.stderr.write(`  ${target}: ${first * chunksPerDocument} chunks written\n`);
  }
  const seconds = (performance.now() - started - generating) / 1000;
  await close();
  result({ chunks: documentCount * chunksPerDocument, seconds, chunksPerSecond: (documentCount * chunksPerDocument) / seconds });
}

/** Times `send` over the queries: 20 warm-up requests, then `queriesTimed`; every answer must be 200. */
async function timeRoute(corpus: ScaleCorpus, send: (query: string) => Promise<Response>): Promise<{ p50: number; p99: number }> {
  for (let index = 0; index < 20; index++) await (await send(corpus.queries[index % corpus.queries.length] as string)).arrayBuffer();
  const samples: number[] = [];
  for (let index = 0; index < queriesTimed; index++) {
    const began = performance.now();
    const response = await send(corpus.queries[index % corpus.queries.length] as string);
    const body = await response.text();
    samples.push(performance.now() - began);
    if (response.status !== 200) throw new Error(`status ${response.status}: ${body.slice(0, 300)}`);
  }
  return { p50: percentile(samples, 50), p99: percentile(samples, 99) };
}

async function serve(corpus: ScaleCorpus): Promise<void> {
  const model = { id: corpus.modelId, dimension: corpus.dimension };
  const dataDir = target === "embedded" ? (location as string) : mkdtempSync(join(tmpdir(), "docqa-scale-"));
  const opened = performance.now();
  let stores: DocumentStores | ReturnType<typeof createEmbeddedStore>;
  const hybridConfig = configFor(corpus, dataDir, { vector: 0.5, bm25: 0.5 });
  const { hnswConnectivity, hnswExpansionSearch } = hybridConfig.stores.vectorIndex;
  const embedded =
    target === "embedded"
      ? createEmbeddedStore({
          dataDir,
          vectorIndex: { mode: "auto", hnsw: { connectivity: hnswConnectivity, expansionSearch: hnswExpansionSearch } },
        })
      : undefined;
  if (embedded) stores = embedded;
  else stores = await storesFromConfig(hybridConfig, silentLogger);
  const vectorIndex = embedded ?? (stores as DocumentStores).vector;
  const keywordIndex = embedded ?? (stores as DocumentStores).keyword;
  if (!vectorIndex) throw new Error("no vector index");
  const filter = { principal: scalePrincipal };
  const firstQuery = corpus.queryVectors.subarray(0, corpus.dimension);
  await keywordIndex.searchByText(scaleOrganisation, corpus.queries[0] as string, { topK: 10, filter });
  await vectorIndex.searchByVector(scaleOrganisation, firstQuery, model, { topK: 10, filter });
  const reopenMs = performance.now() - opened;
  let graphReadyMs: number | undefined;
  if (embedded) {
    // Below HNSW_MIN_VECTORS the store searches exactly and builds no graph (`none`).
    let status = await embedded.vectorIndexStatus(scaleOrganisation);
    while (status.approximate === "building") {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      status = await embedded.vectorIndexStatus(scaleOrganisation);
    }
    if (status.approximate === "ready") graphReadyMs = performance.now() - opened;
  }
  const rssBytes = process.memoryUsage().rss;

  const server = resolveServerConfig({ jwt: { secret } });
  const token = await mintAccessToken(server.jwt, {
    email: scalePrincipal.userName,
    orgId: scaleOrganisation,
    groups: scalePrincipal.groups,
  });
  const headers = { Authorization: `Bearer ${token}`, "Content-Type": "application/json" };
  const latency: Record<string, { p50: number; p99: number }> = {};
  const services = [];
  for (const [mode, weights] of [
    ["bm25", { vector: 0, bm25: 1 }],
    ["vector", { vector: 1, bm25: 0 }],
    ["hybrid", { vector: 0.5, bm25: 0.5 }],
  ] as const) {
    const service = createRagService({
      config: configFor(corpus, dataDir, weights),
      stores,
      embeddings: new PrecomputedEmbeddings(corpus),
      embeddingModelId: corpus.modelId,
    });
    services.push(service);
    await service.ready();
    const setA = predictRoutes(service, { server });
    const setB = chatRoutes(service, { server, rateLimit: false });
    latency[`predict ${mode}`] = await timeRoute(corpus, (query) =>
      Promise.resolve(
        setA.request("/predict", {
          method: "POST",
          headers,
          body: JSON.stringify({ query, user_info: { user_name: scalePrincipal.userName } }),
        }),
      ),
    );
    latency[`search ${mode}`] = await timeRoute(corpus, (query) =>
      Promise.resolve(setB.request("/api/search", { method: "POST", headers, body: JSON.stringify({ query, limit: 10 }) })),
    );
  }

  // Recall@10 of the approximate search against an exact scan of the same vectors.
  const exact = new ExactVectorIndex(corpus.dimension, size);
  for (let n = 0; n < size; n++) exact.set(n, chunkVector(corpus, n));
  const chunkIdOf = (n: number) => `d${Math.floor(n / chunksPerDocument)}::${n % chunksPerDocument}`;
  let found = 0;
  let wanted = 0;
  const recallQueries = Math.min(100, corpus.queries.length);
  for (let index = 0; index < recallQueries; index++) {
    const query = corpus.queryVectors.subarray(index * corpus.dimension, (index + 1) * corpus.dimension);
    const truth = new Set(exact.search(query, 10).map((hit) => chunkIdOf(hit.id)));
    const approximate = await vectorIndex.searchByVector(scaleOrganisation, query, model, { topK: 10, filter });
    wanted += truth.size;
    found += approximate.filter((hit) => truth.has(hit.chunk.id)).length;
  }
  // The services share one set of stores: closing one closes them.
  await services.at(-1)?.close();
  const diskBytes = target === "embedded" ? Number(execFileSync("du", ["-sb", dataDir], { encoding: "utf8" }).split("\t")[0]) : undefined;
  if (target !== "embedded") rmSync(dataDir, { recursive: true, force: true });
  result({ reopenMs, graphReadyMs, rssBytes, latency, recallAt10: found / wanted, diskBytes });
}

/**
 * The embedded store opened once more after `serve` (which saved its HNSW graph): a fresh process
 * until the first BM25 and vector searches are answered, and until the graph is ready (loaded
 * from its snapshot, not rebuilt), then closed.
 */
async function reopen(corpus: ScaleCorpus): Promise<void> {
  const model = { id: corpus.modelId, dimension: corpus.dimension };
  const { hnswConnectivity, hnswExpansionSearch } = configFor(corpus, location as string, { vector: 0.5, bm25: 0.5 }).stores.vectorIndex;
  let loadedFromSnapshot = false;
  const logger = {
    ...silentLogger,
    info(message: string) {
      if (message === "HNSW vector index loaded from its snapshot") loadedFromSnapshot = true;
    },
  };
  const opened = performance.now();
  const store = createEmbeddedStore({
    dataDir: location as string,
    logger,
    vectorIndex: { mode: "auto", hnsw: { connectivity: hnswConnectivity, expansionSearch: hnswExpansionSearch } },
  });
  const filter = { principal: scalePrincipal };
  await store.searchByText(scaleOrganisation, corpus.queries[0] as string, { topK: 10, filter });
  await store.searchByVector(scaleOrganisation, corpus.queryVectors.subarray(0, corpus.dimension), model, { topK: 10, filter });
  const reopenMs = performance.now() - opened;
  let status = await store.vectorIndexStatus(scaleOrganisation);
  while (status.approximate === "building") {
    await new Promise((resolve) => setTimeout(resolve, 100));
    status = await store.vectorIndexStatus(scaleOrganisation);
  }
  const graphReadyMs = status.approximate === "ready" ? performance.now() - opened : undefined;
  const rssBytes = process.memoryUsage().rss;
  await store.close();
  result({ reopenMs, graphReadyMs, rssBytes, loadedFromSnapshot });
}

const corpus = await loadScaleCorpus();
if (command === "ingest") await ingest(corpus);
else if (command === "reopen") await reopen(corpus);
else await serve(corpus);
process.exit(0);
