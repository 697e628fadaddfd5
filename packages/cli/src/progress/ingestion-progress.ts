/**
 * The progress of `docqa ingest` in chunks, the embedding work, rather than files: one file of
 * 9,580 chunks is most of an hour's work, and a bar counting files sat at 44/45, "0.0 files/s",
 * while it was embedded. The job plans its files first (each read and split into chunks, nothing
 * written; `RagService.ingestFiles` with `plan`), so the total is known early; until a file's
 * chunks are known, its share is estimated from its size at the chunks per byte of the files
 * known so far. Files stay a counter beside the bar.
 */
import type { IngestionJob } from "@docqa/core";
import type { IngestionThroughput } from "@docqa/core/ingestion";
import type { ProgressUpdate } from "./progress-reporter.js";

/** How `docqa ingest` shows its progress: the unit of the bar and the counters beside it, in order. */
export function ingestionProgressLayout(embedding: boolean): { unit: string; counters: string[] } {
  return embedding ? { unit: "chunks", counters: ["files", "embeddings", "cached"] } : { unit: "files", counters: ["chunks"] };
}

/** Turns a job's progress into {@link ProgressUpdate}s of chunks. */
export interface IngestionProgress {
  /**
   * The update for the job's state as the service reports it (`onProgress` of
   * `RagService.ingestFiles`): `file` is the label of the file the call is about (its path).
   */
  update(job: IngestionJob, file: string, throughput: IngestionThroughput): ProgressUpdate;
}

/**
 * Creates the progress of a job over `sizes` (each file's label, as the job reports it, to its
 * size in bytes). With `embedding` (an embedding model is loaded) it counts chunks embedded or
 * taken from the cache, of the chunks planned; without, parsing and indexing are the work, and it
 * counts files, with the ETA from the bytes of the files finished.
 */
export function ingestionProgress(sizes: ReadonlyMap<string, number>, embedding: boolean): IngestionProgress {
  const totalBytes = [...sizes.values()].reduce((sum, size) => sum + size, 0);
  if (!embedding) {
    let finishedBytes = 0;
    let processed = 0;
    return {
      update(job, file) {
        if (job.files.processed > processed) {
          processed = job.files.processed;
          finishedBytes += sizes.get(file) ?? 0;
        }
        return {
          done: job.files.processed,
          fraction: totalBytes > 0 ? finishedBytes / totalBytes : undefined,
          counters: { chunks: job.chunks },
          current: file.split(/[\\/]/).at(-1) ?? "",
        };
      },
    };
  }
  /** Files whose chunk count is known, and their bytes. */
  const known = new Set<string>();
  let knownBytes = 0;
  let plannedFiles = 0;
  return {
    update(job, file, throughput) {
      // Each call that raises the count of known files is about the file that became known.
      if (throughput.plannedFiles > plannedFiles && !known.has(file)) {
        known.add(file);
        knownBytes += sizes.get(file) ?? 0;
      }
      plannedFiles = throughput.plannedFiles;
      const done = throughput.embeddedChunks + throughput.cachedChunks;
      const unknownFiles = job.files.total - throughput.plannedFiles;
      // Files not known yet count at the chunks per byte of those known (none known: no estimate).
      const estimated =
        unknownFiles <= 0
          ? 0
          : knownBytes > 0 && throughput.plannedChunks > 0
            ? ((totalBytes - knownBytes) * throughput.plannedChunks) / knownBytes
            : undefined;
      const total = estimated === undefined ? undefined : Math.max(done, Math.round(throughput.plannedChunks + estimated));
      return {
        done,
        total: total ?? Math.max(done, throughput.plannedChunks),
        fraction: total === undefined ? null : total > 0 ? done / total : 1,
        counters: { files: job.files.processed, embeddings: throughput.embeddedChunks, cached: throughput.cachedChunks },
        current: file.split(/[\\/]/).at(-1) ?? "",
      };
    },
  };
}
