import { describe, expect, it } from "vitest";
import { createPerfLog } from "./perf-log.js";

describe("createPerfLog", () => {
  it("writes one line 'PERF {json}' per event when enabled", () => {
    const lines: string[] = [];
    const perfLog = createPerfLog(true, (line) => lines.push(line));
    perfLog({ event: "rag_start", ts: 1_700_000_000_123, request_id: "r-1" });
    perfLog({ event: "retrieval_done", ts: 1_700_000_000_130, request_id: "r-1", retrieval_ms: 7, docs_count: 5 });
    expect(lines).toEqual([
      'PERF {"event":"rag_start","ts":1700000000123,"request_id":"r-1"}\n',
      'PERF {"event":"retrieval_done","ts":1700000000130,"request_id":"r-1","retrieval_ms":7,"docs_count":5}\n',
    ]);
  });

  it("writes nothing when PERF_LOG is false", () => {
    const lines: string[] = [];
    createPerfLog(false, (line) => lines.push(line))({ event: "rag_start", ts: 1, request_id: "r" });
    expect(lines).toEqual([]);
  });
});
