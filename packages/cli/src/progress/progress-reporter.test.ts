import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { createProgress, formatDuration, formatProgressDetails, formatRate, progressMode, progressSnapshot } from "./progress-reporter.js";

function capture(isTTY = false) {
  const stream = Object.assign(new PassThrough(), { isTTY, columns: 160 });
  const chunks: string[] = [];
  stream.on("data", (data: Buffer) => chunks.push(data.toString()));
  return { stream, text: () => chunks.join("") };
}

describe("progressMode", () => {
  it("is off when asked or when standard error is not a terminal, JSON with --json, else a bar", () => {
    expect(progressMode({ quiet: true, json: true }, { isTTY: true })).toBe("off");
    expect(progressMode({ progress: false }, { isTTY: true })).toBe("off");
    expect(progressMode({ json: true }, { isTTY: false })).toBe("json");
    expect(progressMode({}, { isTTY: true })).toBe("bar");
    expect(progressMode({}, { isTTY: false })).toBe("off");
    expect(progressMode({}, {})).toBe("off");
  });
});

describe("progressSnapshot and its text", () => {
  it("computes rates and an ETA from the share of the work done", () => {
    const snapshot = progressSnapshot(
      { phase: "ingest", unit: "files", total: 10, counters: ["chunks", "embeddings"] },
      { done: 2, fraction: 0.25, counters: { chunks: 300 }, current: "handbook.pdf" },
      30,
    );
    expect(snapshot).toEqual({
      phase: "ingest",
      unit: "files",
      done: 2,
      total: 10,
      elapsedSeconds: 30,
      rate: 2 / 30,
      etaSeconds: 90,
      counters: { chunks: { value: 300, perSecond: 10 }, embeddings: { value: 0, perSecond: 0 } },
      current: "handbook.pdf",
    });
    expect(formatProgressDetails(snapshot)).toBe("0.067 files/s | 300 chunks (10/s) | 0 embeddings (0.0/s) | ETA 1m 30s | handbook.pdf");
    const finished = progressSnapshot({ phase: "ask", unit: "questions", total: 4 }, { done: 4 }, 125);
    expect(formatProgressDetails(finished)).toBe("0.032 questions/s | 2m 05s elapsed");
    expect(progressSnapshot({ phase: "ask", unit: "questions", total: 4 }, { done: 0 }, 5).etaSeconds).toBeNull();
  });

  it("formats rates below one with two significant digits, never as 0.0 when something was done", () => {
    expect([formatRate(44 / 3600), formatRate(0.5), formatRate(0), formatRate(3.14), formatRate(41.6)]).toEqual([
      "0.012",
      "0.50",
      "0.0",
      "3.1",
      "42",
    ]);
  });

  it("formats durations", () => {
    expect([formatDuration(null), formatDuration(9.4), formatDuration(65), formatDuration(7500)]).toEqual(["?", "9s", "1m 05s", "2h 05m"]);
  });
});

describe("createProgress", () => {
  it("writes JSON events at most once per interval, always the last one, and nothing after stop", () => {
    const output = capture();
    let clock = 0;
    const progress = createProgress({
      mode: "json",
      phase: "ask",
      unit: "questions",
      total: 3,
      counters: ["failed"],
      stream: output.stream,
      now: () => clock,
    });
    clock = 500;
    progress.update({ done: 1, counters: { failed: 0 } });
    clock = 700;
    progress.update({ done: 2, counters: { failed: 1 } });
    clock = 2000;
    progress.update({ done: 3, counters: { failed: 1 } });
    progress.stop();
    progress.update({ done: 3 });
    const events = output
      .text()
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(events).toEqual([
      {
        event: "progress",
        phase: "ask",
        unit: "questions",
        done: 1,
        total: 3,
        elapsed_s: 0.5,
        rate: 2,
        eta_s: 1,
        failed: 0,
        failed_per_s: 0,
      },
      {
        event: "progress",
        phase: "ask",
        unit: "questions",
        done: 3,
        total: 3,
        elapsed_s: 2,
        rate: 1.5,
        eta_s: 0,
        failed: 1,
        failed_per_s: 0.5,
      },
    ]);
  });

  it("draws a bar with the details on a terminal, and writes nothing when off", () => {
    const terminal = capture(true);
    const bar = createProgress({ mode: "bar", phase: "ingest", unit: "files", total: 2, stream: terminal.stream, now: () => 1000 });
    bar.update({ done: 1, current: "a.md" });
    bar.stop();
    expect(terminal.text()).toContain("ingest [");
    expect(terminal.text()).toContain("] 1/2 files | ");
    const quiet = capture(true);
    const off = createProgress({ mode: "off", phase: "ingest", unit: "files", total: 2, stream: quiet.stream });
    off.update({ done: 1 });
    off.stop();
    expect(quiet.text()).toBe("");
  });
});
