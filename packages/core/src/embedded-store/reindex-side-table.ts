/**
 * The reindex side table of one organisation of the embedded store. A reindex (`docqa reindex`,
 * `service.reindex`) stores the chunks' vectors by the new model in `reindex_vectors`, then
 * replaces the live ones in one transaction, which records the new model and increments the
 * vectors' generation (`vectors_generation`) without logging each chunk as a change: the
 * in-memory indexes of every connection compare that generation and rebuild (see
 * `index-catch-up.ts`). The job itself is recorded in `store_info`, so an interrupted one
 * resumes.
 */
import { DocqaError } from "../errors/docqa-error.js";
import type { ChunkRecord } from "../stores/chunk-record.js";
import { type ReindexJob, reindexHeartbeatTimeoutMs } from "../stores/reindexable-index.js";
import type { EmbeddingModelInfo } from "../stores/vector-index.js";
import { type ChunkRow, type OrganisationDatabase, toChunkRecord } from "./organisation-database.js";

/** The reindex job and side table of one organisation's database. */
export class ReindexSideTable {
  constructor(private readonly database: OrganisationDatabase) {}

  /** The latest reindex job recorded, if any. */
  reindexJob(): ReindexJob | undefined {
    const row = this.database.statements.getInfo.get("reindex_job") as { value: string } | undefined;
    return row ? (JSON.parse(row.value) as ReindexJob) : undefined;
  }

  /**
   * Records `job` and prepares its target: the side table of new vectors is kept when it holds
   * vectors of the same model (an interrupted job resumes), emptied otherwise.
   *
   * @throws {DocqaError} `invalid_request` when another job is running (heartbeat younger than
   *   `reindexHeartbeatTimeoutMs`).
   */
  beginReindex(job: ReindexJob): void {
    this.database.transaction(() => {
      const running = this.reindexJob();
      if (
        running &&
        running.jobId !== job.jobId &&
        running.state === "running" &&
        Date.now() - Date.parse(running.updatedAt) < reindexHeartbeatTimeoutMs
      ) {
        throw new DocqaError(
          "invalid_request",
          `a reindex of this organisation to ${running.model.id} is running (job ${running.jobId}, started ${running.startedAt}); wait for it to finish`,
          { component: "embedded-store" },
        );
      }
      if (!this.isTarget(job.model)) {
        this.database.statements.reindexClear.run();
        this.database.statements.putInfo.run("reindex_model", job.model.id);
        this.database.statements.putInfo.run("reindex_dimension", String(job.model.dimension));
      }
      this.database.statements.putInfo.run("reindex_job", JSON.stringify(job));
    });
  }

  /**
   * Up to `limit` chunks after row `after` whose version has no vector of the target model yet,
   * in row order, and the last row id returned.
   */
  reindexPending(after: number, limit: number): { chunks: ChunkRecord[]; last: number } {
    const rows = this.database.statements.reindexPending.all(after, limit) as Omit<ChunkRow, "terms" | "embedding">[];
    return { chunks: rows.map(toChunkRecord), last: rows.length > 0 ? Number((rows.at(-1) as { id: number }).id) : after };
  }

  /**
   * Stores the chunks' vectors by the target model, in one transaction.
   *
   * @throws {DocqaError} `invalid_request` when the target is no longer `model` (another job
   *   replaced it); `embedding_dimension_mismatch`.
   */
  reindexWrite(chunks: readonly ChunkRecord[], model: EmbeddingModelInfo): void {
    for (const chunk of chunks) {
      if (chunk.embedding?.length !== model.dimension) {
        throw new DocqaError(
          "embedding_dimension_mismatch",
          `chunk ${chunk.id} has no ${model.dimension}-dimensional vector of ${model.id}`,
          {
            component: "embedded-store",
          },
        );
      }
    }
    this.database.transaction(() => {
      this.assertReindexTarget(model);
      for (const chunk of chunks) {
        const vector = chunk.embedding as Float32Array;
        this.database.statements.reindexPut.run(
          chunk.id,
          chunk.contentHash,
          new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength),
        );
      }
    });
  }

  /** Saves a reindex job's progress. */
  saveReindexJob(job: ReindexJob): void {
    this.database.transaction(() => {
      this.database.statements.putInfo.run("reindex_job", JSON.stringify(job));
    });
  }

  /**
   * Replaces every chunk's vector by its vector of `model`, records `model`, and empties the side
   * table, in one transaction; returns false (changing nothing) when a chunk has no vector of
   * `model` yet (written since the last catch-up).
   */
  reindexActivate(model: EmbeddingModelInfo): boolean {
    let activated = false;
    this.database.transaction(() => {
      this.assertReindexTarget(model);
      if (Number((this.database.statements.reindexMissing.get() as { n: number }).n) > 0) return;
      this.database.statements.reindexApply.run();
      this.database.statements.putInfo.run("embedding_model", model.id);
      this.database.statements.putInfo.run("embedding_dimension", String(model.dimension));
      this.database.statements.putInfo.run("vectors_generation", String(this.database.readGeneration() + 1));
      this.database.statements.reindexClear.run();
      this.database.statements.deleteInfo.run("reindex_model");
      this.database.statements.deleteInfo.run("reindex_dimension");
      activated = true;
    });
    return activated;
  }

  /** Whether the side table holds (or is being filled with) vectors of `model`. */
  private isTarget(model: EmbeddingModelInfo): boolean {
    const read = (key: string) => (this.database.statements.getInfo.get(key) as { value: string } | undefined)?.value;
    return read("reindex_model") === model.id && read("reindex_dimension") === String(model.dimension);
  }

  private assertReindexTarget(model: EmbeddingModelInfo): void {
    if (!this.isTarget(model)) {
      throw new DocqaError("invalid_request", `the reindex to ${model.id} was replaced by another one`, { component: "embedded-store" });
    }
  }
}
