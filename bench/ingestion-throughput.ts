/**
 * Ingestion throughput on ../shared/data/documents, docqa's pipeline (loaders, chunking, BM25 and
 * vector indexing in the embedded store, durable SQLite writes) against LangChain's plain
 * pipeline on the same files in the same run (its loaders for each format, the recursive splitter
 * at 1000/150, and `MemoryVectorStore`), with embeddings off and on (the same local model for
 * both, when one is found; see `local-model.ts`). RAPTOR is off in both so the work compared is the
 * same; docqa with RAPTOR is reported on its own.
 */
import { mkdtempSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRagService, type DocqaConfigOverrides, resolveConfig } from "@docqa/core";
import { sharedDataPath } from "@docqa/core/testing";
import { JSONLoader } from "@langchain/classic/document_loaders/fs/json";
import { TextLoader } from "@langchain/classic/document_loaders/fs/text";
import { MemoryVectorStore } from "@langchain/classic/vectorstores/memory";
import { CSVLoader } from "@langchain/community/document_loaders/fs/csv";
import { DocxLoader } from "@langchain/community/document_loaders/fs/docx";
import { PDFLoader } from "@langchain/community/document_loaders/fs/pdf";
import type { Document } from "@langchain/core/documents";
import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import { RecursiveCharacterTextSplitter } from "@langchain/textsplitters";
import { benchmarkModel, loadEmbeddings } from "./local-model.ts";
import type { BenchmarkRow } from "./statistics.ts";

function documentFiles(directory: string): string[] {
  return readdirSync(directory, { recursive: true })
    .map((name) => join(directory, String(name)))
    .filter((path) => statSync(path).isFile())
    .sort();
}

function langChainLoader(path: string) {
  if (path.endsWith(".pdf")) return new PDFLoader(path, { splitPages: true });
  if (path.endsWith(".docx")) return new DocxLoader(path);
  if (path.endsWith(".csv")) return new CSVLoader(path);
  if (path.endsWith(".json")) return new JSONLoader(path);
  return new TextLoader(path);
}

interface Outcome {
  chunks: number;
  failed: number;
  ms: number;
}

async function langChainPipeline(files: readonly string[], embeddings: EmbeddingsInterface | undefined): Promise<Outcome> {
  const started = performance.now();
  const splitter = new RecursiveCharacterTextSplitter({ chunkSize: 1000, chunkOverlap: 150 });
  let chunks = 0;
  let failed = 0;
  const store = embeddings ? new MemoryVectorStore(embeddings) : undefined;
  for (const path of files) {
    let documents: Document[];
    try {
      documents = await langChainLoader(path).load();
    } catch {
      failed++;
      continue;
    }
    const split = await splitter.splitDocuments(documents);
    chunks += split.length;
    if (store && split.length > 0) await store.addDocuments(split);
  }
  return { chunks, failed, ms: performance.now() - started };
}

async function docqaPipeline(
  files: readonly string[],
  overrides: DocqaConfigOverrides,
  embeddings: EmbeddingsInterface | null,
): Promise<Outcome & { reingestMs: number; reingestUnchanged: number }> {
  const service = createRagService({
    config: resolveConfig(overrides, {
      stores: { dataDir: mkdtempSync(join(tmpdir(), "docqa-bench-")) },
      logging: { level: "silent" },
      ingestion: { useRaptor: false },
    }),
    embeddings,
  });
  await service.ready();
  const request = {
    orgId: "bench",
    principal: { userName: "bench@example.org", roles: [], groups: [] },
    files: files.map((path) => ({ path })),
    metadata: { acl: "|user:_all_|" },
  };
  const started = performance.now();
  const job = await service.ingestFiles(request);
  const ms = performance.now() - started;
  // The same folder again: every file is unchanged and skipped by its hash.
  const again = performance.now();
  const second = await service.ingestFiles(request);
  const reingestMs = performance.now() - again;
  await service.close();
  return { chunks: job.chunks, failed: job.files.failed, ms, reingestMs, reingestUnchanged: second.files.unchanged };
}

/** Runs the ingestion benchmarks; empty when the shared documents are absent. */
export async function benchmarkIngestion(): Promise<BenchmarkRow[]> {
  const directory = sharedDataPath("documents");
  if (!directory) {
    console.log("ingestion benchmark skipped: ../shared/data/documents is absent");
    return [];
  }
  const all = documentFiles(directory);
  const rows: BenchmarkRow[] = [];
  // Two views: chunks/s (what each pipeline produces per second; LangChain's loaders make one
  // document per CSV row and per JSON string, so its chunks are many and small), and wall time on
  // the same files (the work a user waits for).
  const compare = (configuration: string, ours: Outcome, baseline: Outcome, files: number) => {
    const benchmark = `ingestion, ${files} shared documents`;
    const baselineName = `LangChain loaders + splitter${configuration.includes("on") ? " + MemoryVectorStore" : ""}`;
    rows.push({
      benchmark,
      configuration: `${configuration}: chunks/s`,
      figures: { "docqa chunks/s": ours.chunks / (ours.ms / 1000), "docqa chunks": ours.chunks, "files rejected": ours.failed },
      baseline: {
        name: `${baselineName} chunks/s (${baseline.chunks} chunks, ${baseline.failed} files failed)`,
        value: baseline.chunks / (baseline.ms / 1000),
      },
      ratio: ours.chunks / (ours.ms / 1000) / (baseline.chunks / (baseline.ms / 1000)),
    });
    rows.push({
      benchmark,
      configuration: `${configuration}: wall time, same files`,
      figures: { "docqa s": ours.ms / 1000 },
      baseline: { name: `${baselineName} s`, value: baseline.ms / 1000 },
      ratio: baseline.ms / ours.ms,
    });
  };
  const off = await docqaPipeline(all, { embeddings: { provider: "none" } }, null);
  const offBaseline = await langChainPipeline(all, undefined);
  compare("embeddings off", off, offBaseline, all.length);
  rows.push({
    benchmark: `ingestion, ${all.length} shared documents`,
    configuration: `re-ingesting the same folder (${off.reingestUnchanged} files unchanged; ratio: second run / first run)`,
    figures: { "second run s": off.reingestMs / 1000 },
    baseline: { name: "first run s", value: off.ms / 1000 },
    ratio: off.reingestMs / off.ms,
  });
  const withRaptor = await docqaPipeline(all, { embeddings: { provider: "none" }, ingestion: { useRaptor: true } }, null);
  rows.push({
    benchmark: `ingestion, ${all.length} shared documents`,
    configuration: "docqa, embeddings off, RAPTOR on (ratio: time against RAPTOR off)",
    figures: { "chunks/s": withRaptor.chunks / (withRaptor.ms / 1000), chunks: withRaptor.chunks, seconds: withRaptor.ms / 1000 },
    baseline: { name: "docqa, RAPTOR off, s", value: off.ms / 1000 },
    ratio: withRaptor.ms / off.ms,
  });

  const model = benchmarkModel("ingestion");
  if (model) {
    // Embedding every chunk of the four largest files would take minutes; they are left out here.
    const largest = new Set([...all].sort((left, right) => statSync(right).size - statSync(left).size).slice(0, 4));
    const subset = all.filter((path) => !largest.has(path));
    const embeddings = await loadEmbeddings(model);
    const on = await docqaPipeline(subset, { embeddings: { provider: "transformers", dimension: model.dimension } }, embeddings);
    const onBaseline = await langChainPipeline(subset, embeddings);
    compare(`embeddings on (${model.id})`, on, onBaseline, subset.length);
  }
  return rows;
}
