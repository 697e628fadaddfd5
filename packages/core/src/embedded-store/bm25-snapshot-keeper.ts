/**
 * When the BM25 postings of one organisation are saved (`bm25-snapshot.ts`), and how without
 * holding the serving thread: the postings are copied in time slices, the file written and
 * checked on libuv's thread pool. Saved after the postings were rebuilt from the database, after
 * 5,000 changes of the log (at most once in ten minutes, {@link SnapshotSchedule}), and when the
 * store closes. A deletion or a replacement applied to the postings removes the saved file at
 * once, so that no file keeps the terms of a deleted document (issue 27); it is saved again at the
 * next of those moments.
 */
import type { Logger } from "../logging/logger.js";
import type { Bm25Index } from "./bm25-index.js";
import type { Bm25Snapshot, Bm25SnapshotCoverage, Bm25SnapshotFiles } from "./bm25-snapshot.js";
import { SnapshotSchedule } from "./snapshot-files.js";
import { runInSlices, runToEnd, TimeSlice } from "./time-slice.js";

/** What a save copies: the postings, and the row id of each slot (undefined for a removed one). */
export interface Bm25SnapshotSource {
  bm25: Bm25Index;
  rowIdAt(slot: number): number | undefined;
}

/**
 * Live chunks from which an organisation's BM25 postings are saved (default of
 * {@link Bm25SnapshotKeeper}'s `minimumChunks`): below it a rebuild from SQLite takes under a
 * second, and a save would only cost a file and descriptors (each organisation open holds three).
 */
export const defaultBm25SnapshotMinimumChunks = 20_000;

/** The saves and loads of one organisation's BM25 postings. */
export class Bm25SnapshotKeeper {
  private readonly schedule = new SnapshotSchedule();
  /** Whether the postings changed since they were loaded or last saved. */
  private dirty = false;
  /** Whether a snapshot may be on disk (false once removed after a deletion, until the next save). */
  private onDisk = true;
  /** Incremented when a deletion removes the snapshot: a save that copied the postings before it is dropped. */
  private removals = 0;
  private saving: Promise<void> | undefined;

  /**
   * @param files - where the postings are saved.
   * @param sliceMs - milliseconds of copying between two turns of the event loop (see {@link TimeSlice}).
   * @param minimumChunks - live chunks from which the postings are saved; default {@link defaultBm25SnapshotMinimumChunks}.
   */
  constructor(
    private readonly files: Bm25SnapshotFiles,
    private readonly logger: Logger,
    private readonly sliceMs?: number,
    private readonly minimumChunks = defaultBm25SnapshotMinimumChunks,
  ) {}

  /** A save in progress, if any (resolves when its files are in place or it was dropped; never rejects). */
  get pendingSave(): Promise<void> | undefined {
    return this.saving;
  }

  /**
   * The saved postings when they belong to this database (`store_id`), organisation and analyzer;
   * undefined otherwise or when the file is missing, truncated or damaged (never throws). Whether
   * the change log still reaches back to them is the caller's check.
   */
  async read(current: Omit<Bm25SnapshotCoverage, "change">): Promise<Bm25Snapshot | undefined> {
    try {
      const snapshot = await this.files.read(
        (saved) => saved.storeId === current.storeId && saved.orgId === current.orgId && saved.analyzer === current.analyzer,
      );
      if (!snapshot) this.logger.info("no saved BM25 postings match the database: building them", { component: "embedded-store" });
      return snapshot;
    } catch (error) {
      this.logger.warn(`ignored the saved BM25 postings: ${(error as Error).message}`, { component: "embedded-store" });
      return undefined;
    }
  }

  /** The postings were loaded from a snapshot covering `change`; `changed` when rows were taken from the database since. */
  loaded(change: number, changed: boolean): void {
    this.schedule.savedChange = change;
    this.onDisk = true;
    this.dirty = changed;
  }

  /** Changes of the log were applied to the postings; `removed` when slots were removed (a deletion or a replacement). */
  changesApplied(removed: boolean): void {
    this.dirty = true;
    if (!removed || !this.onDisk) return;
    this.removals++;
    this.onDisk = false;
    try {
      this.files.remove();
    } catch (error) {
      this.logger.warn(`could not remove the saved BM25 postings: ${(error as Error).message}`, { component: "embedded-store" });
    }
  }

  /**
   * Saves the postings in the background when they changed, hold at least `minimumChunks` live chunks, and a save is due: `now` (after a
   * rebuild from the database), or 5,000 changes after the last save (or after a deletion removed
   * it), at most once in ten minutes. Nothing when a save is in progress or `coverage` is undefined.
   */
  maybeSave(source: Bm25SnapshotSource, coverage: Bm25SnapshotCoverage | undefined, now = false): void {
    if (!coverage || !this.dirty || this.saving || source.bm25.size < this.minimumChunks) return;
    if (!now && !this.schedule.due(this.onDisk ? coverage.change : Number.POSITIVE_INFINITY)) return;
    this.dirty = false;
    this.schedule.began(coverage.change);
    const removals = this.removals;
    const started = performance.now();
    const slice = new TimeSlice(this.sliceMs);
    this.saving = runInSlices(
      source.bm25.capture((slot) => source.rowIdAt(slot)),
      slice,
    )
      .then(async (postings) => {
        const copiedMs = performance.now() - started;
        const written = await this.files.write(postings, coverage, () => removals === this.removals);
        if (!written) {
          this.dirty = true;
          return;
        }
        // A deletion between the check and the rename: the file just written may hold its terms.
        if (removals !== this.removals) this.files.remove();
        else this.onDisk = true;
        this.logger.info("BM25 postings saved", {
          component: "embedded-store",
          rows: postings.rowIds.length,
          postings: postings.postingRows.length,
          ms: Math.round(performance.now() - started),
          copyMs: Math.round(copiedMs),
          longestSliceMs: Math.round(slice.longestMs * 10) / 10,
        });
      })
      .catch((error: unknown) => {
        this.dirty = true;
        this.logger.warn(`could not save the BM25 postings: ${(error as Error).message}`, { component: "embedded-store" });
      })
      .finally(() => {
        this.saving = undefined;
      });
  }

  /**
   * For closing: saves postings that changed since they were last saved, at once (blocking: about
   * a second per million chunks), unless a save is in progress. A failure is logged: the snapshot
   * on disk stays the previous one, or none.
   */
  saveNow(source: Bm25SnapshotSource, coverage: Bm25SnapshotCoverage | undefined): void {
    if (!coverage || !this.dirty || this.saving || source.bm25.size < this.minimumChunks) return;
    try {
      this.files.writeNow(runToEnd(source.bm25.capture((slot) => source.rowIdAt(slot))), coverage);
      this.dirty = false;
      this.onDisk = true;
    } catch (error) {
      this.logger.warn(`could not save the BM25 postings: ${(error as Error).message}`, { component: "embedded-store" });
    }
  }
}
