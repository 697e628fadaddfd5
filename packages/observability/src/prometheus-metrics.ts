/**
 * Prometheus metrics of a docqa service and its HTTP servers, kept in one `prom-client`
 * registry: request counts and latency per route and status (`@hono/prometheus`), rate-limit
 * rejections, pipeline stage latencies and failures, answers by mode and abstention reason,
 * ingestion files, documents and chunks, embedding throughput, store and backend errors, the
 * sweeper of uncommitted chunk versions, the organisation stores open, and the organisations
 * whose vector index holds another embedding model and the reindex jobs running. The names and labels are listed in docs/observability.md.
 */
import type { RagService } from "@docqa/core";
import type { ServiceMetrics } from "@docqa/core/telemetry";
import { prometheus } from "@hono/prometheus";
import type { MiddlewareHandler } from "hono";
import { createMiddleware } from "hono/factory";
import { routePath } from "hono/route";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

/** Options of {@link createPrometheusMetrics}. */
export interface PrometheusMetricsOptions {
  /** The registry to register in; default a new one (never `prom-client`'s global registry). */
  registry?: Registry | undefined;
  /**
   * Also collect Node.js process metrics (`process_*`, `nodejs_*`: prom-client's defaults, less
   * the three gauges named `*_total` that `promtool check metrics` rejects); default true.
   */
  processMetrics?: boolean | undefined;
}

/** What {@link createPrometheusMetrics} returns. */
export interface PrometheusMetrics {
  /** The registry: `await registry.metrics()` is the exposition text, `registry.contentType` its media type. */
  readonly registry: Registry;
  /** Pass as `createRagService({ metrics })`: records the service's stage, answer, ingestion, embedding, backend and sweep events. */
  readonly serviceMetrics: ServiceMetrics;
  /**
   * Middleware counting and timing every request of one endpoint set (label `set`) per method,
   * route pattern and status, and counting 429 answers as rate-limit rejections. Pass it to the
   * route factories' `middleware` option, so it runs before authentication and rate limits.
   */
  httpMiddleware(set: string): MiddlewareHandler;
  /**
   * Reads `docqa_open_organisation_stores` from `service.statistics()`, and
   * `docqa_vector_indexes_other_model` and `docqa_reindex_jobs_running` from `service.health()`
   * (neither waits for a backend), at every scrape. Call once per service.
   */
  observeService(service: Pick<RagService, "statistics" | "health">): void;
}

/** Histogram buckets of pipeline stages, in seconds: from half a millisecond (a filter) to 30 s (a slow model). */
const stageBuckets = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Histogram buckets of embedding calls, in seconds: one query (milliseconds) to a 64-chunk batch on a CPU. */
const embeddingBuckets = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** The label value of an absent code or reason. */
const none = "none";

/**
 * Creates the metrics. Every metric name starts with `docqa_` except the process metrics'.
 *
 * @example
 * ```ts
 * const metrics = createPrometheusMetrics();
 * const service = createRagService({ config: loadConfig(), metrics: metrics.serviceMetrics });
 * metrics.observeService(service);
 * const app = chatRoutes(service, { middleware: [metrics.httpMiddleware("b")] });
 * app.get("/metrics", metricsHandler(metrics, { access: "open" }));
 * ```
 */
export function createPrometheusMetrics(options: PrometheusMetricsOptions = {}): PrometheusMetrics {
  const registry = options.registry ?? new Registry();
  const registers = [registry];
  if (options.processMetrics ?? true) {
    collectDefaultMetrics({ register: registry });
    // Gauges named like counters: `promtool check metrics` rejects them.
    for (const name of ["nodejs_active_handles_total", "nodejs_active_requests_total", "nodejs_active_resources_total"]) {
      registry.removeSingleMetric(name);
    }
  }

  const http = prometheus({
    registry,
    prefix: "docqa_",
    metricOptions: {
      requestDuration: { customLabels: { set: endpointSetOf } },
      requestsTotal: { customLabels: { set: endpointSetOf } },
    },
  });
  const counter = <Label extends string>(name: string, help: string, labelNames: Label[]) =>
    new Counter<Label>({ name, help, labelNames, registers });
  const histogram = <Label extends string>(name: string, help: string, labelNames: Label[], buckets: number[]) =>
    new Histogram<Label>({ name, help, labelNames, buckets, registers });
  const rateLimited = counter(
    "docqa_rate_limit_rejections_total",
    "Requests refused with 429 because the user's request budget was spent, per endpoint set and route.",
    ["set", "route"],
  );
  const stageSeconds = histogram(
    "docqa_pipeline_stage_duration_seconds",
    "Duration of pipeline stages that completed, per pipeline (predict, search), stage and PERF phase.",
    ["pipeline", "stage", "phase"],
    stageBuckets,
  );
  const stageFailures = counter(
    "docqa_pipeline_stage_failures_total",
    "Pipeline stages that threw (the request failed), per pipeline, stage and error code.",
    ["pipeline", "stage", "code"],
  );
  const answers = counter(
    "docqa_answers_total",
    "Answers given by predict, per answer mode, whether the answerer abstained, and the abstention reason (none when not given).",
    ["mode", "abstained", "abstention_reason"],
  );
  const files = counter(
    "docqa_ingestion_files_total",
    "Files processed by ingestion jobs, per outcome (ingested, unchanged, rejected) and rejection code (none unless rejected).",
    ["outcome", "code"],
  );
  const documents = counter(
    "docqa_ingestion_documents_total",
    "Documents indexed by /upsert and ingestion, per status (written, unchanged).",
    ["status"],
  );
  const chunks = counter(
    "docqa_ingestion_chunks_total",
    "Chunks written by /upsert and ingestion, per kind (chunk, summary: RAPTOR nodes).",
    ["kind"],
  );
  const embeddedTexts = counter(
    "docqa_embedding_texts_total",
    "Texts embedded, per operation (query, documents); divide its rate by docqa_embedding_duration_seconds' for the throughput.",
    ["operation", "model"],
  );
  const embeddedCharacters = counter("docqa_embedding_characters_total", "Characters embedded, per operation (query, documents).", [
    "operation",
    "model",
  ]);
  const embeddingSeconds = histogram(
    "docqa_embedding_duration_seconds",
    "Duration of embedding model calls, per operation (query, documents) and outcome (ok, error).",
    ["operation", "model", "outcome"],
    embeddingBuckets,
  );
  const backendErrors = counter(
    "docqa_backend_errors_total",
    "Failed calls to a store or the embedding model, per backend, operation and error code.",
    ["backend", "operation", "code"],
  );
  const sweepPasses = counter(
    "docqa_sweep_passes_total",
    "Passes of the sweeper of uncommitted chunk versions (staged stores), per outcome (ok, error: some index or organisation could not be swept).",
    ["outcome"],
  );
  const sweptVersions = counter(
    "docqa_swept_versions_total",
    "Uncommitted document versions that failed or interrupted writes left, removed by the sweeper.",
    [],
  );
  const sweptChunks = counter("docqa_swept_chunks_total", "Chunks of the uncommitted versions removed by the sweeper.", []);
  const services: Pick<RagService, "statistics" | "health">[] = [];
  /** The services' `vectorIndexes` health detail, summed. */
  const vectorIndexes = async () => {
    const detail = { otherModel: 0, reindexing: 0 };
    for (const service of services) {
      const health = (await service.health().catch(() => undefined))?.vectorIndexes;
      detail.otherModel += health?.otherModel ?? 0;
      detail.reindexing += health?.reindexing ?? 0;
    }
    return detail;
  };
  new Gauge({
    name: "docqa_vector_indexes_other_model",
    help: "Organisations known to this process whose vector index holds another embedding model, or none: served with BM25 alone (or the index's model) until docqa reindex.",
    registers,
    async collect() {
      this.set((await vectorIndexes()).otherModel);
    },
  });
  new Gauge({
    name: "docqa_reindex_jobs_running",
    help: "Reindex jobs (docqa reindex, service.reindex) running in this process.",
    registers,
    async collect() {
      this.set((await vectorIndexes()).reindexing);
    },
  });
  new Gauge({
    name: "docqa_open_organisation_stores",
    help: "Organisation stores open in this process (the embedded store's SQLite files); 0 when the backends keep nothing open per organisation.",
    registers,
    async collect() {
      let open = 0;
      for (const service of services) open += (await service.statistics().catch(() => undefined))?.openOrganisationStores ?? 0;
      this.set(open);
    },
  });

  const serviceMetrics: ServiceMetrics = {
    stage(event) {
      if (event.outcome === "ok") stageSeconds.observe({ pipeline: event.pipeline, stage: event.stage, phase: event.phase }, event.seconds);
      else stageFailures.inc({ pipeline: event.pipeline, stage: event.stage, code: event.errorCode ?? none });
    },
    answer(event) {
      answers.inc({ mode: event.mode, abstained: String(event.abstained), abstention_reason: event.abstentionReason ?? none });
    },
    fileIngested(event) {
      files.inc({ outcome: event.outcome, code: event.errorCode ?? none });
    },
    indexed(event) {
      documents.inc({ status: "written" }, event.documentsWritten);
      documents.inc({ status: "unchanged" }, event.documentsUnchanged);
      chunks.inc({ kind: "chunk" }, event.chunksWritten);
      chunks.inc({ kind: "summary" }, event.summaries);
    },
    embedded(event) {
      const labels = { operation: event.operation, model: event.model };
      if (event.outcome === "ok") {
        embeddedTexts.inc(labels, event.texts);
        embeddedCharacters.inc(labels, event.characters);
      }
      embeddingSeconds.observe({ ...labels, outcome: event.outcome }, event.seconds);
    },
    backendError(event) {
      backendErrors.inc({ backend: event.backend, operation: event.operation, code: event.code });
    },
    swept(event) {
      sweepPasses.inc({ outcome: event.failures > 0 ? "error" : "ok" });
      sweptVersions.inc(event.versionsRemoved);
      sweptChunks.inc(event.chunksRemoved);
    },
  };

  return {
    registry,
    serviceMetrics,
    httpMiddleware(set) {
      return createMiddleware<{ Variables: { docqaEndpointSet: string } }>(async (c, next) => {
        c.set("docqaEndpointSet", set);
        await http.registerMetrics(c, async () => {
          await next();
          if (c.res.status === 429) rateLimited.inc({ set, route: routePath(c) });
        });
      });
    },
    observeService(service) {
      services.push(service);
    },
  };
}

/** The `set` label of a request: what {@link PrometheusMetrics.httpMiddleware} recorded. */
function endpointSetOf(c: { get(key: "docqaEndpointSet"): unknown }): string {
  const set = c.get("docqaEndpointSet");
  return typeof set === "string" ? set : "unknown";
}
