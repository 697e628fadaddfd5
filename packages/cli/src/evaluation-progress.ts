/**
 * Progress of `docqa eval` on standard error: a progress bar with the rate (documents embedded
 * per second while ingesting, queries per second while searching) and the time left, JSON
 * lines with `--json` (at the start and end of each phase and at most one a second between), or
 * nothing (not a terminal, `--quiet`).
 */
import { SingleBar } from "cli-progress";

/** How progress is shown. */
export type ProgressMode = "bar" | "json" | "off";

/** A progress update as printed with `--json` (one object per line on standard error). */
export interface ProgressEvent {
  event: "progress";
  /** For example `vector: ingest`, `hybrid-minmax: query`. */
  phase: string;
  done: number;
  total: number;
  /** `documents` while ingesting, `queries` while searching. */
  unit: string;
  /** Items per second since the phase started. */
  perSecond: number;
  /** Seconds left at that rate; null before the first item. */
  etaSeconds: number | null;
}

/** The progress shown for a run of `docqa eval`. */
export interface EvaluationProgress {
  update(phase: string, done: number, total: number, unit: string): void;
  stop(): void;
}

/**
 * The progress display for `mode`.
 *
 * @param mode - `bar` draws on a terminal, `json` writes {@link ProgressEvent} lines, `off` is silent.
 * @param write - where JSON lines go; default standard error.
 */
export function createEvaluationProgress(
  mode: ProgressMode,
  write: (line: string) => void = (line) => process.stderr.write(line),
): EvaluationProgress {
  const bar = new SingleBar({
    format: "{phase} [{bar}] {value}/{total} {unit} | {rate} {unit}/s | ETA {eta_formatted}",
    hideCursor: true,
    etaBuffer: 50,
  });
  let phase = "";
  let phaseStarted = 0;
  let startDone = 0;
  let lastWritten = 0;
  return {
    update(name, done, total, unit) {
      if (mode === "off") return;
      const now = performance.now();
      if (name !== phase) {
        if (mode === "bar" && phase !== "") bar.stop();
        phase = name;
        phaseStarted = now;
        // The evaluation announces each phase with done = 0 before its first item.
        startDone = done;
        if (mode === "bar") bar.start(total, done, { phase: name, unit, rate: "0.0" });
      }
      const seconds = (now - phaseStarted) / 1000;
      const perSecond = seconds > 0 ? (done - startDone) / seconds : 0;
      if (mode === "bar") {
        bar.update(done, { phase: name, unit, rate: perSecond.toFixed(1) });
        return;
      }
      if (done !== startDone && done !== total && now - lastWritten < 1000) return;
      lastWritten = now;
      const event: ProgressEvent = {
        event: "progress",
        phase: name,
        done,
        total,
        unit,
        perSecond: Number(perSecond.toFixed(2)),
        etaSeconds: perSecond > 0 ? Math.round((total - done) / perSecond) : null,
      };
      write(`${JSON.stringify(event)}\n`);
    },
    stop() {
      if (mode === "bar" && phase !== "") bar.stop();
      phase = "";
    },
  };
}
