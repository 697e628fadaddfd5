/**
 * The sweeper of uncommitted chunk versions on staged stores (Milvus, Elasticsearch/OpenSearch;
 * decision 3). Each pass lists, per index and organisation, the stored document versions and
 * compares them with the registry's committed versions. A version that is not committed is
 * remembered with the time it was first seen, and removed once it has stayed uncommitted for the
 * grace period (`SWEEP_GRACE_SECONDS`): a write in progress commits long before that, so only
 * leftovers of failed or interrupted writes are removed. The registry is read again just before
 * removing, and removal deletes exact versions (never "every version but the committed one"), so
 * a write that commits, or starts, meanwhile loses nothing.
 *
 * First-seen times live in this process: after a restart the grace period starts again, which
 * only delays a removal. Several instances may sweep the same stores; removals are idempotent.
 */
import { DocqaError } from "../errors/docqa-error.js";
import type { Logger } from "../logging/logger.js";
import type { DocumentRegistry } from "./document-registry.js";
import type { StoredVersion, SweepableIndex } from "./sweepable-index.js";

/** What one organisation's sweep of one index removed. */
export interface SweptOrganisation {
  /** The index swept, for example `milvus`. */
  index: string;
  orgId: string;
  /** Uncommitted versions removed. */
  versions: number;
  /** Their chunks. */
  chunks: number;
}

/** The outcome of one sweep pass (also handed to {@link SweeperSettings.onSweep}). */
export interface SweepReport {
  /** ISO 8601 start time. */
  startedAt: string;
  durationMs: number;
  /** Organisations looked at (over all indexes). */
  organisations: number;
  /** Uncommitted versions removed, over all indexes and organisations. */
  versionsRemoved: number;
  /** Chunks of the removed versions. */
  chunksRemoved: number;
  /** Uncommitted versions seen that are still within the grace period (possibly writes in progress). */
  pending: number;
  /** Per index and organisation, where something was removed. */
  removed: SweptOrganisation[];
  /** Indexes or organisations that could not be swept, and why; they are retried on the next pass. */
  errors: { index: string; orgId?: string | undefined; error: string }[];
}

/** Settings of {@link createUncommittedSweeper}. */
export interface SweeperSettings {
  /** The staged indexes to sweep, each once (Milvus alone is both vector and keyword index). */
  indexes: readonly SweepableIndex[];
  /** The registry of committed versions. */
  registry: DocumentRegistry;
  /** How long a version must stay uncommitted before it is removed, in milliseconds (`SWEEP_GRACE_SECONDS`). */
  graceMs: number;
  logger: Logger;
  /**
   * Called after every pass with its report: the hook to count removals in a metric (for
   * example a Prometheus counter of `chunksRemoved`). Errors it throws are logged and ignored.
   */
  onSweep?: ((report: SweepReport) => void) | undefined;
  /** The clock, in milliseconds; default `Date.now`. */
  now?: (() => number) | undefined;
}

/** A sweeper: passes on demand, or every interval in the background. */
export interface UncommittedSweeper {
  /** Runs one pass now (or joins the pass already running) and returns its report. Never throws. */
  sweep(): Promise<SweepReport>;
  /** Runs a pass every `intervalMs` in the background (the timer does not keep the process alive). */
  start(intervalMs: number): void;
  /** Stops the background passes and waits for a running one. */
  stop(): Promise<void>;
}

/** Creates the sweeper of `settings.indexes`; see the module documentation. */
export function createUncommittedSweeper(settings: SweeperSettings): UncommittedSweeper {
  const now = settings.now ?? Date.now;
  /** First time each uncommitted version was seen, by `index \0 org \0 doc \0 version`. */
  const firstSeen = new Map<string, number>();
  let running: Promise<SweepReport> | undefined;
  let timer: NodeJS.Timeout | undefined;

  const keyOf = (index: string, orgId: string, version: Pick<StoredVersion, "docId" | "contentHash">) =>
    [index, orgId, version.docId, version.contentHash].join("\u0000");

  /** Sweeps one organisation of one index; returns what was removed and how many are pending. */
  const sweepOrganisation = async (index: SweepableIndex, orgId: string, seen: Set<string>) => {
    const versions = await index.storedVersions(orgId);
    if (versions.length === 0) return { removed: [] as StoredVersion[], pending: 0 };
    const committed = await settings.registry.contentHashes(orgId, [...new Set(versions.map((version) => version.docId))]);
    const uncommitted = versions.filter((version) => committed.get(version.docId) !== version.contentHash);
    const time = now();
    const expired: StoredVersion[] = [];
    for (const version of uncommitted) {
      const key = keyOf(index.name, orgId, version);
      seen.add(key);
      const first = firstSeen.get(key) ?? time;
      firstSeen.set(key, first);
      if (time - first >= settings.graceMs) expired.push(version);
    }
    if (expired.length === 0) return { removed: [], pending: uncommitted.length };
    // Read again just before removing: a slow write may have committed one of them meanwhile.
    const current = await settings.registry.contentHashes(orgId, [...new Set(expired.map((version) => version.docId))]);
    const stale = expired.filter((version) => current.get(version.docId) !== version.contentHash);
    if (stale.length > 0) await index.removeVersions(orgId, stale);
    for (const version of stale) firstSeen.delete(keyOf(index.name, orgId, version));
    return { removed: stale, pending: uncommitted.length - stale.length };
  };

  const pass = async (): Promise<SweepReport> => {
    const started = performance.now();
    const report = emptySweepReport(new Date(now()).toISOString());
    const seen = new Set<string>();
    /** `index \0 org \0` prefixes of the organisations swept completely in this pass. */
    const sweptPrefixes = new Set<string>();
    const organisations = new Set<string>();
    for (const index of settings.indexes) {
      let orgIds: string[];
      try {
        orgIds = await index.organisations();
      } catch (error) {
        report.errors.push({ index: index.name, error: messageOf(error) });
        continue;
      }
      for (const orgId of orgIds) {
        organisations.add(orgId);
        try {
          const { removed, pending } = await sweepOrganisation(index, orgId, seen);
          sweptPrefixes.add(`${index.name}\u0000${orgId}\u0000`);
          report.pending += pending;
          if (removed.length === 0) continue;
          const chunks = removed.reduce((sum, version) => sum + version.chunks, 0);
          report.removed.push({ index: index.name, orgId, versions: removed.length, chunks });
          report.versionsRemoved += removed.length;
          report.chunksRemoved += chunks;
        } catch (error) {
          report.errors.push({ index: index.name, orgId, error: messageOf(error) });
        }
      }
    }
    // Versions no longer seen were committed or removed by a later write: forget them.
    for (const key of firstSeen.keys()) {
      const prefix = key.split("\u0000").slice(0, 2).join("\u0000");
      if (sweptPrefixes.has(`${prefix}\u0000`) && !seen.has(key)) firstSeen.delete(key);
    }
    report.organisations = organisations.size;
    report.durationMs = Math.round(performance.now() - started);
    const fields = {
      component: "sweeper",
      organisations: report.organisations,
      versions_removed: report.versionsRemoved,
      chunks_removed: report.chunksRemoved,
      pending: report.pending,
      duration_ms: report.durationMs,
      grace_ms: settings.graceMs,
    };
    if (report.versionsRemoved > 0) settings.logger.info("swept uncommitted chunk versions", fields);
    else settings.logger.debug("nothing to sweep", fields);
    for (const failure of report.errors)
      settings.logger.warn("sweeping uncommitted chunk versions failed; retried on the next pass", { component: "sweeper", ...failure });
    try {
      settings.onSweep?.(report);
    } catch (error) {
      settings.logger.warn("the sweep hook failed", { component: "sweeper", error: messageOf(error) });
    }
    return report;
  };

  const sweep = (): Promise<SweepReport> => {
    running ??= pass().finally(() => {
      running = undefined;
    });
    return running;
  };

  return {
    sweep,
    start(intervalMs) {
      if (timer || intervalMs <= 0) return;
      timer = setInterval(() => void sweep(), intervalMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}

/** A report of a pass that found nothing (also what a store that leaves nothing to sweep reports). */
export function emptySweepReport(startedAt: string): SweepReport {
  return { startedAt, durationMs: 0, organisations: 0, versionsRemoved: 0, chunksRemoved: 0, pending: 0, removed: [], errors: [] };
}

function messageOf(error: unknown): string {
  return DocqaError.isInstance(error) ? error.publicMessage : (error as Error).message;
}
