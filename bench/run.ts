/**
 * `npm run bench`: runs every benchmark and prints one table of figures with their same-run
 * baselines. Needs `npm run build`. `BENCH_ITERATIONS` sets the latency sample count;
 * `BENCH_ONLY=predict|ingestion|speed|quality` runs one group; `BENCH_ONLY=kernel` runs only the
 * exact-scan kernel comparison of the `speed` group (decision record 0004). `BENCH_ONLY=cli` times the command
 * line (a single `docqa ask` start, `docqa ask --file` throughput in-process and over HTTP). `BENCH_ONLY=backends` compares the
 * embedded store with Milvus + OpenSearch + Redis (servers of `scripts/services/start-all.sh`). `BENCH_ONLY=load` runs the set B
 * load benchmark (autocannon on loopback, about a minute and both CPU cores), `BENCH_ONLY=serving`
 * serving during ingestion and the hostile set (issue 14: a server process with ingestion worker
 * threads, a few minutes), `BENCH_ONLY=reindex` the model change benchmark (real models, a few
 * minutes; `BENCH_REINDEX_SERVERS=1` adds Milvus + OpenSearch), `BENCH_ONLY=embedding` the
 * embedding throughput against fastembed and sentence-transformers (creates Python virtual
 * environments in bench/.venv on first use), `BENCH_ONLY=ingestion-history` SciFact ingestion with
 * embeddings now against docqa when the embedding issue was filed (builds that version in
 * bench/.baseline on first use), `BENCH_ONLY=fusion` the fusion study over every local
 * model and retrieval set, `BENCH_ONLY=embedding-thread` answering with a model, its forward passes in the
 * serving thread and in the embedding thread, `BENCH_ONLY=dense-cache` answering a SQuAD v2 question stream with the
 * dense-signal cache off and on (a real model, a few minutes), `BENCH_ONLY=docx-memory` the DOCX parser's heap per MiB of XML
 * behind the archive limits (issue 24, a few minutes), `BENCH_ONLY=ingestion-model` ingesting ../shared/data/documents
 * with bge-small against embedding the same chunks alone (issue 27's 80 % target; many minutes), `BENCH_ONLY=llm` the
 * in-process language model against `llama-bench` (generation and prompt speed, first-token overhead, event-loop delay;
 * needs `npm run models:test-llm`, a few minutes); `BENCH_ONLY=scale` docqa at 100k and 1M chunks on the
 * embedded store and on the engines (bench/scale.ts, hours), `BENCH_ONLY=hybrid` hybrid search fused in Milvus against
 * fusion in docqa on SciFact (bench/hybrid-engine.ts), `BENCH_ONLY=bm25-pruning` the embedded store's BM25 top-k with
 * MaxScore pruning against the exhaustive search at 100k and 1M chunks of the scale corpus (bench/bm25-pruning.ts, a few
 * minutes), `BENCH_ONLY=hnsw-expansion` recall@10 and latency of saved HNSW graphs of the scale corpus at several ef, and the
 * fitted default ef rule (bench/hnsw-expansion.ts, needs BENCH_HNSW_GRAPHS); the default run leaves these fifteen out.
 */
import { cpus } from "node:os";
import { benchmarkIndexSpeed } from "./index-speed.ts";
import { benchmarkIngestion } from "./ingestion-throughput.ts";
import { benchmarkPredictLatency } from "./predict-latency.ts";
import { benchmarkRetrievalQuality } from "./retrieval-quality.ts";
import { benchmarkScanKernel } from "./scan-kernel.ts";
import { type BenchmarkRow, printRows } from "./statistics.ts";

const iterations = Number(process.env.BENCH_ITERATIONS ?? 300);
const only = process.env.BENCH_ONLY;
console.log(`docqa benchmarks: node ${process.version}, ${cpus().length} x ${cpus()[0]?.model ?? "cpu"}\n`);
const rows: BenchmarkRow[] = [];
if (!only || only === "predict") rows.push(...(await benchmarkPredictLatency(iterations)));
if (!only || only === "ingestion") rows.push(...(await benchmarkIngestion()));
if (!only || only === "speed") rows.push(...(await benchmarkIndexSpeed()));
if (only === "kernel") rows.push(...(await benchmarkScanKernel()));
if (!only || only === "quality") rows.push(...(await benchmarkRetrievalQuality()));
if (only === "fusion") rows.push(...(await (await import("./fusion-quality.ts")).benchmarkFusionQuality()));
if (only === "ingestion-history") rows.push(...(await (await import("./ingestion-then-and-now.ts")).benchmarkIngestionHistory()));
if (only === "embedding") rows.push(...(await (await import("./embedding-throughput.ts")).benchmarkEmbeddingThroughput()));
if (only === "ingestion-model") rows.push(...(await (await import("./ingestion-with-model.ts")).benchmarkIngestionWithModel()));
if (only === "backends") rows.push(...(await (await import("./backends.ts")).benchmarkBackends(iterations)));
if (only === "cli") rows.push(...(await (await import("./cli.ts")).benchmarkCli()));
if (only === "load") rows.push(...(await (await import("./chat-api-load.ts")).benchmarkChatApiLoad()));
if (only === "serving") rows.push(...(await (await import("./serving-under-ingestion.ts")).benchmarkServingUnderIngestion()));
if (only === "embedding-thread") rows.push(...(await (await import("./embedding-thread.ts")).benchmarkEmbeddingThread()));
if (only === "dense-cache") rows.push(...(await (await import("./dense-cache.ts")).benchmarkDenseCache()));
if (only === "docx-memory") rows.push(...(await (await import("./docx-parser-memory.ts")).benchmarkDocxParserMemory()));
if (only === "reindex") rows.push(...(await (await import("./model-change.ts")).benchmarkModelChange()));
if (only === "llm") rows.push(...(await (await import("./llm-speed.ts")).benchmarkLlmSpeed()));
if (only === "scale") rows.push(...(await (await import("./scale.ts")).benchmarkScale()));
if (only === "bm25-pruning") rows.push(...(await (await import("./bm25-pruning.ts")).benchmarkBm25Pruning()));
if (only === "hnsw-expansion") rows.push(...(await (await import("./hnsw-expansion.ts")).benchmarkHnswExpansion()));
if (only === "hybrid") rows.push(...(await (await import("./hybrid-engine.ts")).benchmarkHybridEngine()));
printRows(rows);
