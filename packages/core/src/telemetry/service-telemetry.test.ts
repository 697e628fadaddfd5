/**
 * The spans and metric events of a whole service, recorded with OpenTelemetry's in-memory
 * exporter: one span per request and per stage, per query and per engine, per ingestion step,
 * with counts and no text unless `TRACE_CONTENT` is on.
 */
import { context, SpanStatusCode, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { defaultPredictStages, defaultSearchStages } from "../pipeline/default-stages.js";
import type { RagService } from "../service/rag-service.js";
import { createTestService } from "../testing/create-test-service.js";
import type { ServiceMetrics } from "./service-metrics.js";

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const contextManager = new AsyncLocalStorageContextManager();

const orgId = "org-telemetry";
const principal = { userName: "ann@example.org", roles: [], groups: [] };
const question = "How many vacation days do new employees get?";
const handbook = "New employees receive 20 vacation days per year. Unused vacation days expire in March.";

type Events = { [K in keyof Required<ServiceMetrics>]: Parameters<Required<ServiceMetrics>[K]>[0][] };

function recordingMetrics(): { metrics: ServiceMetrics; events: Events } {
  const events: Events = { stage: [], answer: [], fileIngested: [], indexed: [], embedded: [], backendError: [], swept: [] };
  return {
    events,
    metrics: {
      stage: (event) => events.stage.push(event),
      answer: (event) => events.answer.push(event),
      fileIngested: (event) => events.fileIngested.push(event),
      indexed: (event) => events.indexed.push(event),
      embedded: (event) => events.embedded.push(event),
      backendError: (event) => events.backendError.push(event),
      swept: (event) => events.swept.push(event),
    },
  };
}

function service(metrics: ServiceMetrics, traceContent = false): RagService {
  return createTestService({ metrics, config: { logging: { level: "silent", traceContent } } });
}

const milliseconds = (span: ReadableSpan) => span.duration[0] * 1000 + span.duration[1] / 1e6;
const nanoseconds = (time: [number, number]) => BigInt(time[0]) * 1_000_000_000n + BigInt(time[1]);
const byStart = (a: ReadableSpan, b: ReadableSpan) => Number(nanoseconds(a.startTime) - nanoseconds(b.startTime));
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const named = (spans: ReadableSpan[], name: string) => spans.filter((span) => span.name === name);
const one = (spans: ReadableSpan[], name: string) => {
  const found = named(spans, name);
  expect(found.map((span) => span.name)).toEqual([name]);
  return found[0] as ReadableSpan;
};

beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
  trace.setGlobalTracerProvider(provider);
});
afterAll(async () => {
  trace.disable();
  context.disable();
  await provider.shutdown();
});
beforeEach(() => exporter.reset());

describe("service telemetry", () => {
  it("traces predict as one request span with one child span per stage whose durations are the stage timings", async () => {
    const { metrics, events } = recordingMetrics();
    const rag = service(metrics);
    await rag.upsert({ orgId, principal, uploader: principal.userName, documents: { handbook: { title: "Handbook", content: handbook } } });
    exporter.reset();
    const result = await rag.predict({ orgId, principal, query: question });
    await rag.close();

    const spans = exporter.getFinishedSpans();
    const request = one(spans, "docqa.predict");
    expect(parentOf(request)).toBeUndefined();
    const inOrder = spans.filter((span) => span.name.startsWith("docqa.stage.")).sort(byStart);
    expect(inOrder.map((span) => span.name)).toEqual(defaultPredictStages.map((stage) => `docqa.stage.${stage.name}`));
    expect(inOrder.map((span) => span.attributes["docqa.stage.index"])).toEqual(defaultPredictStages.map((_, index) => index));
    // One timeline: each stage starts at or after the end of the one before, inside the request.
    for (const [index, span] of inOrder.entries()) {
      const previousEnd = index === 0 ? request.startTime : (inOrder[index - 1] as ReadableSpan).endTime;
      expect(nanoseconds(span.startTime) >= nanoseconds(previousEnd), span.name).toBe(true);
    }
    expect(nanoseconds((inOrder.at(-1) as ReadableSpan).endTime) <= nanoseconds(request.endTime)).toBe(true);
    expect(inOrder.every((span) => parentOf(span) === request.spanContext().spanId)).toBe(true);
    // The same clock readings: each span lasts exactly its stage's timing.
    for (const [index, timing] of (result.stages ?? []).entries()) {
      expect(inOrder[index]?.attributes["docqa.stage.name"]).toBe(timing.stage);
      expect(milliseconds(inOrder[index] as ReadableSpan)).toBeCloseTo(timing.milliseconds, 3);
    }
    const stageSum = inOrder.reduce((sum, span) => sum + milliseconds(span), 0);
    expect(stageSum).toBeLessThanOrEqual(milliseconds(request));

    expect(request.attributes).toMatchObject({
      "docqa.org_id": orgId,
      "docqa.question.chars": question.length,
      "docqa.answer.mode": "extractive",
      "docqa.answer.sources": Object.keys(result.sources).length,
      "docqa.queries": 1,
      "docqa.chunks": 1,
    });
    const retrieve = one(spans, "docqa.stage.retrieve");
    const query = one(spans, "docqa.retrieve.query");
    expect(parentOf(query)).toBe(retrieve.spanContext().spanId);
    expect(query.attributes).toMatchObject({ "docqa.query.kind": "question", "docqa.candidates": 1, "docqa.vector_used": true });
    for (const child of ["docqa.embed.query", "docqa.search.vector", "docqa.search.keyword", "docqa.fuse"]) {
      expect(parentOf(one(spans, child)), child).toBe(query.spanContext().spanId);
    }
    expect(one(spans, "docqa.search.keyword").attributes).toMatchObject({ "docqa.backend": "embedded", "docqa.search.results": 1 });
    const accessFilter = one(spans, "docqa.stage.access-filter");
    expect(accessFilter.attributes).toMatchObject({ "docqa.candidates": 1, "docqa.results": 1, "docqa.stage.phase": "retrieval" });

    // No text in any attribute unless TRACE_CONTENT is on.
    const values = spans.flatMap((span) => Object.values(span.attributes).map(String));
    expect(values.filter((value) => value.includes("vacation") || value.includes("Handbook"))).toEqual([]);

    expect(events.stage.map((event) => `${event.pipeline}/${event.stage}/${event.outcome}`)).toEqual(
      defaultPredictStages.map((stage) => `predict/${stage.name}/ok`),
    );
    expect(events.answer).toEqual([{ mode: "extractive", abstained: false, abstentionReason: null }]);
    // The upsert's one chunk, then the question.
    expect(events.embedded.map((event) => [event.operation, event.texts, event.outcome])).toEqual([
      ["documents", 1, "ok"],
      ["query", 1, "ok"],
    ]);
  });

  it("carries the question, queries and callout only when TRACE_CONTENT is on", async () => {
    const rag = service({}, true);
    await rag.upsert({ orgId, principal, uploader: principal.userName, documents: { handbook: { title: "Handbook", content: handbook } } });
    const result = await rag.predict({ orgId, principal, query: question });
    await rag.close();
    const spans = exporter.getFinishedSpans();
    expect(one(spans, "docqa.predict").attributes).toMatchObject({
      "docqa.question": question,
      "docqa.query": question,
      "docqa.answer.callout": result.answer.callout_answer,
    });
    expect(one(spans, "docqa.retrieve.query").attributes["docqa.query"]).toBe(question);
  });

  it("traces search as docqa.search with the search stages", async () => {
    const rag = service({});
    await rag.upsert({ orgId, principal, uploader: principal.userName, documents: { handbook: { title: "Handbook", content: handbook } } });
    exporter.reset();
    await rag.search({ orgId, principal, query: "vacation days" });
    await rag.close();
    const spans = exporter.getFinishedSpans();
    const request = one(spans, "docqa.search");
    const stageNames = spans
      .filter((span) => parentOf(span) === request.spanContext().spanId)
      .sort(byStart)
      .map((span) => span.name);
    expect(stageNames).toEqual(defaultSearchStages.map((stage) => `docqa.stage.${stage.name}`));
    expect(request.attributes["docqa.chunks"]).toBe(1);
  });

  it("traces an ingestion job per file and per step, and reports files, documents, chunks and rejections", async () => {
    const { metrics, events } = recordingMetrics();
    const rag = service(metrics);
    const job = await rag.ingestFiles({
      orgId,
      principal,
      files: [
        { name: "handbook.md", bytes: new TextEncoder().encode(`# Leave\n\n${handbook}\n`) },
        { name: "broken.json", bytes: new TextEncoder().encode('{"title": "unterminated') },
      ],
    });
    await rag.close();
    expect(job.files).toMatchObject({ ingested: 1, failed: 1 });

    const spans = exporter.getFinishedSpans();
    const jobSpan = one(spans, "docqa.ingest.job");
    expect(jobSpan.attributes).toMatchObject({
      "docqa.files": 2,
      "docqa.files.ingested": 1,
      "docqa.files.failed": 1,
      "docqa.job.state": "partially_failed",
    });
    const files = named(spans, "docqa.ingest.file");
    expect(files.map((span) => parentOf(span))).toEqual([jobSpan.spanContext().spanId, jobSpan.spanContext().spanId]);
    const good = files.find((span) => span.attributes["docqa.file.extension"] === "md") as ReadableSpan;
    const bad = files.find((span) => span.attributes["docqa.file.extension"] === "json") as ReadableSpan;
    expect(good.attributes).toMatchObject({ "docqa.file.outcome": "ingested", "docqa.documents": 1, "docqa.chunks": job.chunks });
    expect(bad.status.code).toBe(SpanStatusCode.ERROR);
    expect(bad.attributes["error.type"]).toBe("corrupt_file");
    expect(good.attributes["docqa.file.name"]).toBeUndefined();

    const goodId = good.spanContext().spanId;
    const load = named(spans, "docqa.ingest.load").find((span) => parentOf(span) === goodId) as ReadableSpan;
    expect(load.attributes).toMatchObject({ "docqa.documents": 1 });
    const index = one(spans, "docqa.index");
    expect(parentOf(index)).toBe(goodId);
    for (const step of ["docqa.ingest.chunk", "docqa.embed.documents", "docqa.store.write"]) {
      expect(parentOf(one(spans, step)), step).toBe(index.spanContext().spanId);
    }
    expect(one(spans, "docqa.store.write").attributes).toMatchObject({
      "docqa.backend": "embedded",
      "docqa.documents": 1,
      "docqa.chunks": job.chunks,
    });

    // Files are ingested concurrently: compare without order.
    expect([...events.fileIngested].sort((a, b) => a.outcome.localeCompare(b.outcome))).toEqual([
      { outcome: "ingested", errorCode: null, documents: 1, chunks: job.chunks },
      { outcome: "rejected", errorCode: "corrupt_file", documents: 0, chunks: 0 },
    ]);
    expect(events.indexed).toEqual([{ documentsWritten: 1, documentsUnchanged: 0, chunksWritten: job.chunks, summaries: 0 }]);
    expect(events.embedded.map((event) => [event.operation, event.texts])).toEqual([["documents", job.chunks]]);
  });

  it("reports a failing store as a backend error and a failed stage span", async () => {
    const { metrics, events } = recordingMetrics();
    const rag = service(metrics);
    await rag.upsert({ orgId, principal, uploader: principal.userName, documents: { handbook: { title: "Handbook", content: handbook } } });
    await rag.close();
    exporter.reset();
    // The closed embedded store refuses every search with store_unavailable.
    await expect(rag.predict({ orgId, principal, query: question })).rejects.toMatchObject({ code: "store_unavailable" });
    const spans = exporter.getFinishedSpans();
    expect(one(spans, "docqa.stage.retrieve").status.code).toBe(SpanStatusCode.ERROR);
    expect(one(spans, "docqa.predict").attributes["error.type"]).toBe("store_unavailable");
    expect(events.backendError).toContainEqual({ backend: "embedded", operation: "search_vector", code: "store_unavailable" });
    expect(events.stage.at(-1)).toMatchObject({ stage: "retrieve", outcome: "error", errorCode: "store_unavailable" });
  });
});
