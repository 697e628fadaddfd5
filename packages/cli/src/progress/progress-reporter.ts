/**
 * Progress on standard error for every command a person waits on (`docqa ingest`, `docqa ask
 * --file`; built to be reused by `eval` and a future `reindex`): a bar with rates and an ETA on a
 * terminal (cli-progress), one JSON event per line with `--json`, nothing with `--quiet`,
 * `--no-progress`, or when standard error is not a terminal.
 */
import { SingleBar } from "cli-progress";

/** How progress is shown: a bar, JSON events, or not at all. */
export type ProgressMode = "bar" | "json" | "off";

/** The command-line flags that decide the {@link ProgressMode}. */
export interface ProgressFlags {
  /** `--quiet`: no progress and no notes. */
  quiet?: boolean | undefined;
  /** `--json`: JSON progress events instead of a bar. */
  json?: boolean | undefined;
  /** `--no-progress` sets this to false. */
  progress?: boolean | undefined;
}

/**
 * The mode for `flags`: `off` with `--quiet` or `--no-progress`; `json` with `--json` (whether or
 * not standard error is a terminal, since a program reads it); otherwise `bar` when `stream` is a
 * terminal and `off` when it is not (a pipe or a file gets no control characters).
 */
export function progressMode(flags: ProgressFlags, stream: { isTTY?: boolean } = process.stderr): ProgressMode {
  if (flags.quiet === true || flags.progress === false) return "off";
  if (flags.json === true) return "json";
  return stream.isTTY === true ? "bar" : "off";
}

/** Settings of {@link createProgress}. */
export interface ProgressSettings {
  mode: ProgressMode;
  /** What is running, for example `ingest`; the bar's label and the events' `phase`. */
  phase: string;
  /** What is counted, for example `files`. */
  unit: string;
  /** Units to do. */
  total: number;
  /** Further counters shown with their rate per second, in this order, for example `["chunks", "embeddings"]`. */
  counters?: readonly string[] | undefined;
  /** Where progress goes; default `process.stderr`. */
  stream?: NodeJS.WritableStream | undefined;
  /** Clock in milliseconds; default `performance.now`. */
  now?: (() => number) | undefined;
  /** Least time between two JSON events, in milliseconds; default 1,000. The last state is always written. */
  jsonIntervalMs?: number | undefined;
}

/** The state of the work, as reported by the command. */
export interface ProgressUpdate {
  /** Units done. */
  done: number;
  /**
   * Units to do, when the work grows or is estimated as it goes (ingestion learns each file's
   * chunks as it plans or reads it); default {@link ProgressSettings.total}.
   */
  total?: number | undefined;
  /**
   * Share of the work done, from 0 to 1, for the ETA; default `done / total`. Give a better
   * measure when units differ in size; null when it is not known yet (no ETA is shown).
   */
  fraction?: number | null | undefined;
  /** Current values of the counters named in {@link ProgressSettings.counters}. */
  counters?: Readonly<Record<string, number>> | undefined;
  /** The item being worked on, for example a file name. */
  current?: string | undefined;
}

/** What a progress event says: the fields of a JSON event, also the source of the bar's text. */
export interface ProgressSnapshot {
  phase: string;
  unit: string;
  done: number;
  total: number;
  /** Seconds since the reporter was created. */
  elapsedSeconds: number;
  /** Units per second so far. */
  rate: number;
  /** Seconds left, by the share of the work done so far; null before any work is done. */
  etaSeconds: number | null;
  /** Each counter's value and rate per second. */
  counters: Record<string, { value: number; perSecond: number }>;
  current: string | undefined;
}

/** Shows the progress of one piece of work. */
export interface ProgressReporter {
  readonly mode: ProgressMode;
  /** Records the new state and shows it (the bar redraws at most 10 times a second). */
  update(update: ProgressUpdate): void;
  /** Shows the last state and gives the terminal line back; later updates are ignored. */
  stop(): void;
}

/** Computes a {@link ProgressSnapshot}. */
export function progressSnapshot(
  settings: Pick<ProgressSettings, "phase" | "unit" | "total" | "counters">,
  update: ProgressUpdate,
  elapsedSeconds: number,
): ProgressSnapshot {
  const seconds = Math.max(elapsedSeconds, 1e-3);
  const total = update.total ?? settings.total;
  const share = update.fraction === undefined ? (total > 0 ? update.done / total : 1) : update.fraction;
  const fraction = share === null ? 0 : Math.min(1, Math.max(0, share));
  const counters: ProgressSnapshot["counters"] = {};
  for (const name of settings.counters ?? []) {
    const value = update.counters?.[name] ?? 0;
    counters[name] = { value, perSecond: value / seconds };
  }
  return {
    phase: settings.phase,
    unit: settings.unit,
    done: update.done,
    total,
    elapsedSeconds,
    rate: update.done / seconds,
    etaSeconds: fraction > 0 ? (elapsedSeconds * (1 - fraction)) / fraction : null,
    counters,
    current: update.current,
  };
}

/** `42s`, `3m 05s`, `2h 07m`; `?` for null. */
export function formatDuration(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return "?";
  const whole = Math.round(seconds);
  if (whole < 60) return `${whole}s`;
  if (whole < 3600) return `${Math.floor(whole / 60)}m ${String(whole % 60).padStart(2, "0")}s`;
  return `${Math.floor(whole / 3600)}h ${String(Math.floor((whole % 3600) / 60)).padStart(2, "0")}m`;
}

/**
 * A rate for people: whole above 10, one decimal above 1, two significant digits below (a file
 * every 80 s is `0.013 files/s`, not `0.0`).
 */
export function formatRate(perSecond: number): string {
  if (perSecond >= 10) return perSecond.toFixed(0);
  if (perSecond >= 1 || perSecond === 0) return perSecond.toFixed(1);
  return perSecond.toPrecision(2);
}

/** The text beside the bar: rates, counters, ETA and the current item. */
export function formatProgressDetails(snapshot: ProgressSnapshot): string {
  const parts = [`${formatRate(snapshot.rate)} ${snapshot.unit}/s`];
  for (const [name, counter] of Object.entries(snapshot.counters))
    parts.push(`${counter.value} ${name} (${formatRate(counter.perSecond)}/s)`);
  parts.push(
    snapshot.done >= snapshot.total ? `${formatDuration(snapshot.elapsedSeconds)} elapsed` : `ETA ${formatDuration(snapshot.etaSeconds)}`,
  );
  if (snapshot.current) parts.push(snapshot.current.length > 40 ? `…${snapshot.current.slice(-39)}` : snapshot.current);
  return parts.join(" | ");
}

/** The JSON event of a snapshot: `{"event":"progress","phase":...,"done":...,"total":...,"rate":...,"eta_s":...}` plus each counter and its rate. */
export function progressEvent(snapshot: ProgressSnapshot): Record<string, unknown> {
  const round = (value: number) => Math.round(value * 100) / 100;
  const event: Record<string, unknown> = {
    event: "progress",
    phase: snapshot.phase,
    unit: snapshot.unit,
    done: snapshot.done,
    total: snapshot.total,
    elapsed_s: round(snapshot.elapsedSeconds),
    rate: round(snapshot.rate),
    eta_s: snapshot.etaSeconds === null ? null : round(snapshot.etaSeconds),
  };
  for (const [name, counter] of Object.entries(snapshot.counters)) {
    event[name] = counter.value;
    event[`${name}_per_s`] = round(counter.perSecond);
  }
  if (snapshot.current !== undefined) event.current = snapshot.current;
  return event;
}

/**
 * Creates a reporter for one piece of work.
 *
 * @example
 * ```ts
 * const progress = createProgress({ mode: progressMode(options), phase: "ingest", unit: "files", total: files.length, counters: ["chunks"] });
 * progress.update({ done: 3, counters: { chunks: 120 }, current: "handbook.pdf" });
 * progress.stop();
 * ```
 */
export function createProgress(settings: ProgressSettings): ProgressReporter {
  const stream = settings.stream ?? process.stderr;
  const now = settings.now ?? (() => performance.now());
  const started = now();
  const interval = settings.jsonIntervalMs ?? 1000;
  let last: ProgressUpdate = { done: 0 };
  let lastEventAt = Number.NEGATIVE_INFINITY;
  let lastWritten: ProgressUpdate | undefined;
  let stopped = false;
  const snapshot = () => progressSnapshot(settings, last, (now() - started) / 1000);
  const writeEvent = () => {
    lastEventAt = now();
    lastWritten = last;
    stream.write(`${JSON.stringify(progressEvent(snapshot()))}\n`);
  };
  const bar =
    settings.mode === "bar"
      ? new SingleBar({
          stream,
          hideCursor: true,
          barsize: 24,
          format: `${settings.phase} [{bar}] {value}/{total} ${settings.unit} | {details}`,
        })
      : undefined;
  bar?.start(settings.total, 0, { details: formatProgressDetails(snapshot()) });
  return {
    mode: settings.mode,
    update(update) {
      if (stopped || settings.mode === "off") return;
      last = update;
      if (bar) {
        if (update.total !== undefined && update.total !== bar.getTotal()) bar.setTotal(update.total);
        bar.update(update.done, { details: formatProgressDetails(snapshot()) });
      } else if (now() - lastEventAt >= interval || update.done >= (update.total ?? settings.total)) writeEvent();
    },
    stop() {
      if (stopped) return;
      stopped = true;
      if (bar) {
        bar.update(last.done, { details: formatProgressDetails(snapshot()) });
        bar.stop();
      } else if (settings.mode === "json" && lastWritten !== last) writeEvent();
    },
  };
}
