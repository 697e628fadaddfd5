/**
 * The summary `docqa ask --file` prints at the end: how many questions were answered, abstained
 * on and failed, throughput, and latency percentiles.
 */
import type { BatchOutcome } from "@docqa/core";

/** Counts and latencies of a finished batch. */
export interface BatchSummary {
  /** Questions asked in this run (without those skipped by `--resume`). */
  asked: number;
  answered: number;
  abstained: number;
  failed: number;
  /** Questions skipped because the output already answered them (`--resume`). */
  skipped: number;
  /** Wall-clock seconds of the batch. */
  seconds: number;
  /** Questions asked per second of wall-clock time. */
  questionsPerSecond: number;
  /** Latency percentiles in milliseconds (nearest rank), null when nothing was asked. */
  p50Ms: number | null;
  p95Ms: number | null;
}

/** The p-th percentile (0 to 100) of `samples` by the nearest-rank method; null for no samples. */
export function nearestRankPercentile(samples: readonly number[], p: number): number | null {
  if (samples.length === 0) return null;
  const sorted = [...samples].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length))) - 1] ?? null;
}

/** Summarises answers (`outcome` and `latencyMs` of each) over `seconds` of wall-clock time. */
export function summarizeBatch(
  answers: readonly { outcome: BatchOutcome; latencyMs: number }[],
  seconds: number,
  skipped = 0,
): BatchSummary {
  const count = (outcome: BatchOutcome) => answers.filter((answer) => answer.outcome === outcome).length;
  const latencies = answers.map((answer) => answer.latencyMs);
  return {
    asked: answers.length,
    answered: count("answered"),
    abstained: count("abstained"),
    failed: count("failed"),
    skipped,
    seconds,
    questionsPerSecond: answers.length / Math.max(seconds, 1e-3),
    p50Ms: nearestRankPercentile(latencies, 50),
    p95Ms: nearestRankPercentile(latencies, 95),
  };
}

const milliseconds = (value: number | null) => (value === null ? "-" : `${Math.round(value)} ms`);

/** One line for a terminal, for example `200 questions in 41.2 s (4.9/s): 171 answered, 27 abstained, 2 failed; latency p50 180 ms, p95 420 ms`. */
export function formatBatchSummary(summary: BatchSummary): string {
  const skipped = summary.skipped > 0 ? `; ${summary.skipped} skipped (already answered in the output)` : "";
  return `${summary.asked} question${summary.asked === 1 ? "" : "s"} in ${summary.seconds.toFixed(1)} s (${summary.questionsPerSecond.toFixed(1)}/s): ${summary.answered} answered, ${summary.abstained} abstained, ${summary.failed} failed; latency p50 ${milliseconds(summary.p50Ms)}, p95 ${milliseconds(summary.p95Ms)}${skipped}`;
}

/** The `--json` summary event: `{"event":"summary","asked",...,"questions_per_s","p50_ms","p95_ms"}`, rounded like progress events. */
export function batchSummaryEvent(summary: BatchSummary): Record<string, unknown> {
  const round = (value: number | null) => (value === null ? null : Math.round(value * 100) / 100);
  return {
    event: "summary",
    asked: summary.asked,
    answered: summary.answered,
    abstained: summary.abstained,
    failed: summary.failed,
    skipped: summary.skipped,
    elapsed_s: round(summary.seconds),
    questions_per_s: round(summary.questionsPerSecond),
    p50_ms: round(summary.p50Ms),
    p95_ms: round(summary.p95Ms),
  };
}
