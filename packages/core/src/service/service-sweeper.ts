/** The service's sweeper of uncommitted chunk versions (staged stores only), created on first use. */
import type { DocqaConfig } from "../config/config-schema.js";
import type { Logger } from "../logging/logger.js";
import { createUncommittedSweeper, type UncommittedSweeper } from "../stores/sweep-uncommitted.js";
import { isSweepable, type SweepableIndex } from "../stores/sweepable-index.js";
import type { PreparedRuntime } from "./prepare-runtime.js";
import type { RagServiceOptions } from "./rag-service-options.js";

/** The sweeper of a service, created once its stores are. */
export interface LazySweeper {
  /** The sweeper; undefined when the stores are not staged. A failed creation is retried on the next call. */
  get(): Promise<UncommittedSweeper | undefined>;
  /** Stops the sweeper if it was created; never throws for a failed creation. */
  stop(): Promise<void>;
}

/**
 * The sweeper of uncommitted chunk versions of the service's stores (`SWEEP_GRACE_SECONDS`),
 * reporting each pass to `options.metrics` and `options.onSweep`.
 */
export function lazySweeper(
  config: DocqaConfig,
  options: Pick<RagServiceOptions, "metrics" | "onSweep">,
  prepared: Pick<PreparedRuntime, "runtime">,
  logger: Logger,
): LazySweeper {
  let sweeper: Promise<UncommittedSweeper | undefined> | undefined;
  const get = (): Promise<UncommittedSweeper | undefined> => {
    sweeper ??= prepared.runtime().then(({ stores }) => {
      if (stores.writes !== "staged") return undefined;
      const indexes = [...new Set([stores.vector, stores.keyword])].filter(
        (index): index is NonNullable<typeof index> & SweepableIndex => index !== undefined && isSweepable(index),
      );
      return createUncommittedSweeper({
        indexes,
        registry: stores.registry,
        graceMs: config.stores.sweepGraceSeconds * 1000,
        logger,
        onSweep: (report) => {
          options.metrics?.swept?.({
            versionsRemoved: report.versionsRemoved,
            chunksRemoved: report.chunksRemoved,
            pending: report.pending,
            failures: report.errors.length,
            seconds: report.durationMs / 1000,
          });
          options.onSweep?.(report);
        },
      });
    });
    sweeper.catch(() => {
      sweeper = undefined;
    });
    return sweeper;
  };
  return {
    get,
    async stop() {
      await (await sweeper?.catch(() => undefined))?.stop();
    },
  };
}
