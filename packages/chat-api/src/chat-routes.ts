/**
 * Endpoint set B as Hono routes: `GET /health` (liveness), `GET /readyz` (readiness),
 * `POST /api/chat`, `POST /api/search`, `POST /api/ingest`, `GET /api/ingest/{jobId}`,
 * `DELETE /api/memory`, `GET /api/reindex`, the documents API (`GET /api/documents`, `GET` and
 * `DELETE /api/documents/{id}`); plus `/openapi.json`, `/docs` and `/redoc`.
 * Every `/api` route takes the bearer JWT of set A and is rate limited per user. Routes parse and
 * validate, call one service method, and map the result; retrieval, access control and answering
 * live in `@docqa/core`, and errors, unknown routes, the body limit, authentication, rate limits
 * and the reference pages are `@docqa/http`'s `createDocqaApp`. The documents API is
 * `@docqa/http`'s `addDocumentRoutes` with set B's wire shapes (`documents-wire.ts`); the OpenAPI
 * error prose is in `openapi-responses.ts`.
 */
import { randomUUID } from "node:crypto";
import { rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import {
  assertJsonDepth,
  DocqaError,
  type IngestionJob,
  type Logger,
  type PredictRequest,
  type PrincipalResolver,
  parseDocumentMetadata,
  type RagService,
} from "@docqa/core";
import { formatFromName, formatList, uploadedFileSources } from "@docqa/core/ingestion";
import type { RetrievedChunk } from "@docqa/core/retrieval";
import {
  type AuthVariables,
  addDocumentRoutes,
  addReadinessRoute,
  createDocqaApp,
  type DocqaAppOptions,
  defaultJsonContentType,
  defaultRateLimitPolicy,
  jsonBody,
  loadServerConfig,
  type RateLimitPolicy,
  type RateLimitSetting,
  receiveUpload,
  requestIdHeadersSchema,
  type ServerConfig,
} from "@docqa/http";
import { createRoute } from "@hono/zod-openapi";
import type { Hono } from "hono";
import packageJson from "../package.json" with { type: "json" };
import { answerConfidence } from "./answer-confidence.js";
import { setBDocuments } from "./documents-wire.js";
import { setBErrors } from "./error-responses.js";
import { errorContent, errors, jsonResponse, modelErrors, setBResponses } from "./openapi-responses.js";
import { renderAnswer, sourceFileNames } from "./render-answer.js";
import {
  type ChatMessage,
  chatRequestSchema,
  chatResponseSchema,
  chatResponseWire,
  forgetResponseSchema,
  healthResponseSchema,
  ingestFormSchema,
  ingestJobResponseSchema,
  ingestQuerySchema,
  ingestResponseSchema,
  jobParamsSchema,
  reindexStatusResponseSchema,
  searchRequestSchema,
  searchResponseSchema,
} from "./schemas.js";
import { searchConditions } from "./search-conditions.js";

/** Options of {@link chatRoutes}. */
export interface ChatRoutesOptions {
  /** Server settings (access tokens, `JWT_*`); default `loadServerConfig()` (the environment), read when the first request needs it. */
  server?: ServerConfig | undefined;
  /**
   * Per-user rate limits of every `/api` route. Default {@link defaultRateLimitPolicy} (100 per
   * minute and 1,000 per hour, spec "Limits") counted in this process. Pass a
   * {@link RateLimitPolicy} for other budgets, `{ limiters }` of any `RateLimiter` for counters
   * in a shared store (`@docqa/redis`'s `createRateLimiter`: every instance shares the budget), or
   * `false` to disable.
   */
  rateLimit?: RateLimitSetting | undefined;
  /** Serve `/openapi.json`, `/docs` and `/redoc`; default true. */
  referencePages?: boolean | undefined;
  /**
   * Where an authenticated principal's roles and groups come from (a directory lookup, see
   * `createCachedPrincipalResolver`); default the token's `role`, `roles` and `groups` claims.
   */
  resolvePrincipal?: PrincipalResolver | undefined;
  logger?: Logger | undefined;
  /** Middleware run first on every request (`DocqaAppOptions.middleware`), for example request metrics and tracing; default none. */
  middleware?: DocqaAppOptions["middleware"];
}

/**
 * What `POST /api/chat` passes to `RagService.predict`: the request plus `history`, the client's
 * previous messages (`context`), oldest first. The core reads `history` once conversation memory
 * supports it; until then it is passed through unused.
 */
export type ChatPredictRequest = PredictRequest & { history?: readonly ChatMessage[] | undefined };

function searchResult(result: RetrievedChunk) {
  const metadata = result.chunk.metadata;
  return {
    id: result.chunk.id,
    content: result.chunk.text,
    score: result.rerankScore ?? result.score,
    metadata: {
      ...metadata,
      filename: typeof metadata.filename === "string" ? metadata.filename : sourceFileNames(metadata, result.chunk.title).join(", "),
      type: typeof metadata.type === "string" ? metadata.type : "text",
    },
  };
}

function ingestResponse(job: IngestionJob, queued: boolean) {
  return {
    success: queued ? job.state === "queued" || job.state === "running" || job.state === "succeeded" : job.state === "succeeded",
    documentsProcessed: job.documents,
    jobId: job.jobId,
    state: job.state,
    files: job.files,
    errors: job.errors,
  };
}

/**
 * The form field `metadata`: a JSON object, validated with `/upsert`'s metadata schema
 * (`parseDocumentMetadata`: `acl`, `owner_id` and `source` strings, `created_at` a date), so an
 * `acl` given as a list, a number or null is refused, never dropped.
 *
 * @throws {DocqaError} `invalid_request`; `json_too_deep`.
 */
function parseMetadata(text: string | undefined, maxJsonDepth: number): Record<string, unknown> | undefined {
  if (text === undefined || text.trim() === "") return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new DocqaError("invalid_request", "the form field metadata must be a JSON object", { component: "chat-api" });
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new DocqaError("invalid_request", "the form field metadata must be a JSON object", { component: "chat-api" });
  }
  assertJsonDepth(value, maxJsonDepth, "the form field metadata", "chat-api");
  return parseDocumentMetadata(value, "metadata");
}

/**
 * Builds the set B app over `service`. Serve it directly, or mount it in your own Hono app with
 * `app.route("/", chatRoutes(service))` (its paths already start with `/api`).
 *
 * @example
 * ```ts
 * const service = createRagService({ config: loadConfig() });
 * serve({ fetch: chatRoutes(service).fetch, port: 8000 });
 * ```
 */
export function chatRoutes(service: RagService, options: ChatRoutesOptions = {}): Hono<{ Variables: AuthVariables }> {
  const config = service.config;
  let loaded: ServerConfig | undefined = options.server;
  const server = (): ServerConfig => (loaded ??= loadServerConfig());
  const { app, authenticated } = createDocqaApp({
    jwt: () => server().jwt,
    resolvePrincipal: options.resolvePrincipal,
    limits: () => ({ ...server().limits, maxJsonDepth: config.ingestion.maxJsonDepth }),
    component: "chat-api",
    errors: setBErrors,
    rateLimit: options.rateLimit ?? defaultRateLimitPolicy,
    referencePages: (options.referencePages ?? true) && {
      title: "docqa: endpoint set B",
      version: packageJson.version,
      description: [
        "Chat, search and ingestion over an organisation's documents, with citations and per-document access control.",
        "Authenticate every `/api` route with `Authorization: Bearer <JWT>` (the same token as set A; `org_id` selects the organisation).",
        'Errors are `{"error": {"code": "...", "message": "..."}}`.',
        "Rate limits: per user, 100 requests per minute and 1,000 per hour by default; excess gives 429 with `Retry-After`.",
      ].join(" "),
    },
    logger: options.logger,
    middleware: options.middleware,
    dataDirectory: () => service.config.stores.dataDir,
  });
  app.openAPIRegistry.register("IngestForm", ingestFormSchema);
  app.use("/api/chat", defaultJsonContentType());
  app.use("/api/search", defaultJsonContentType());

  app.openapi(
    createRoute({
      method: "get",
      path: "/health",
      summary: "Health check",
      description:
        "Liveness: no authentication, no rate limit, and no backend is asked (use `/readyz` as the readiness probe). `status` is `degraded` when retrieval runs on BM25 alone.",
      responses: { 200: { content: { "application/json": { schema: healthResponseSchema } }, description: "The service is up." } },
    }),
    async (c) => {
      const health = await service.health();
      return c.json({ status: health.status, timestamp: new Date().toISOString(), version: packageJson.version }, 200);
    },
  );

  addReadinessRoute(app, service);

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/chat",
      summary: "Chat message",
      description:
        "Answers `message` from the organisation's documents the user may read, with numbered citations. `sessionId` names the conversation; `context` carries previous messages.",
      ...authenticated,
      request: { headers: requestIdHeadersSchema, body: jsonBody(chatRequestSchema) },
      responses: { 200: jsonResponse(chatResponseSchema, "The answer, the cited files and a confidence."), ...errors, ...modelErrors },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const auth = c.get("auth");
      const request: ChatPredictRequest = {
        orgId: auth.orgId,
        principal: auth.principal,
        query: body.message,
        threadId: body.sessionId,
        history: body.context,
        requestId: c.req.header("X-Request-Id"),
        signal: c.req.raw.signal,
      };
      const result = await service.predict(request);
      const rendered = renderAnswer(result.answer, result.sources);
      const { confidence } = answerConfidence(result.answer, result.sources, config.retrieval, result.abstained);
      const own = {
        response: rendered.text,
        sources: rendered.files,
        confidence,
        sessionId: body.sessionId,
        unsupportedCitations: result.unsupportedCitations.length,
      };
      return c.json(chatResponseWire.toWire(result, own), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/search",
      summary: "Semantic search",
      description:
        "Hybrid search (vector and BM25, fused) over the chunks the user may read, without answering. `filters` narrows by type, `created_at` range, source or any metadata key.",
      ...authenticated,
      request: { headers: requestIdHeadersSchema, body: jsonBody(searchRequestSchema) },
      responses: { 200: jsonResponse(searchResponseSchema, "Matching chunks, best first."), ...errors },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const auth = c.get("auth");
      const result = await service.search({
        orgId: auth.orgId,
        principal: auth.principal,
        query: body.query,
        limit: body.limit,
        metadata: searchConditions(body.filters),
        requestId: c.req.header("X-Request-Id"),
        signal: c.req.raw.signal,
      });
      return c.json({ results: result.results.map(searchResult), total: result.total }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/ingest",
      summary: "Document ingestion",
      description: `Multipart upload of one or more files in the field \`files\` (${formatList("names")}). The document id of each file is \`<owner>/<file name>\` (a name space per owner; the file name is the \`filename\` metadata), so an upload only ever replaces a file of that name of the same owner. The uploader owns new documents; share them with an \`acl\` in \`metadata\`. A re-upload whose \`acl\` alone changed re-stamps the stored chunks without re-embedding. When a store the job writes (vector index, keyword index, registry, job store) does not answer within \`READINESS_TIMEOUT_MS\`, the upload is refused with 503 \`store_unavailable\` before a job is created, as \`/upsert\` is. Example: \`curl -H "Authorization: Bearer $TOKEN" -F files=@handbook.pdf -F files=@faq.md -F 'metadata={"acl":"|user:_all_|"}' http://localhost:8000/api/ingest\`.`,
      ...authenticated,
      request: {
        query: ingestQuerySchema,
        headers: requestIdHeadersSchema,
        // A reference, not the zod schema: the body is streamed to disk by the handler, never parsed whole by a validator.
        body: { content: { "multipart/form-data": { schema: { $ref: "#/components/schemas/IngestForm" } } }, required: true },
      },
      responses: {
        200: jsonResponse(ingestResponseSchema, "The job has finished (`wait=true`, the default)."),
        202: jsonResponse(ingestResponseSchema, "The job is queued (`wait=false`)."),
        ...errors,
      },
    }),
    async (c) => {
      const wait = c.req.valid("query").wait !== "false";
      const auth = c.get("auth");
      // Refuse before reading a byte when the ingestion queue is full.
      service.checkIngestionCapacity();
      const { limits } = server();
      const received = await receiveUpload(c.req.raw, {
        directory: join(resolve(config.stores.dataDir), "uploads", `incoming-${randomUUID()}`),
        fileField: "files",
        fields: ["metadata"],
        limits: { maxFileBytes: config.ingestion.maxUploadBytes, maxFiles: limits.maxUploadFiles },
        checkFile: (name, earlier) => {
          if (name === "") throw new DocqaError("invalid_request", "every uploaded file needs a file name", { component: "chat-api" });
          if (earlier.some((file) => file.name === name))
            throw new DocqaError("invalid_request", `${name} is uploaded twice in one request`, { component: "chat-api" });
          formatFromName(name);
        },
        component: "chat-api",
      });
      try {
        const metadata = parseMetadata(received.fields.metadata, config.ingestion.maxJsonDepth);
        // Each owner's uploads have their own ids (`<owner>/<file name>`): see uploadedFileSources.
        const files = uploadedFileSources(received.files, auth.principal, metadata ?? {});
        const request = {
          orgId: auth.orgId,
          principal: auth.principal,
          files,
          metadata,
          uploadDirectory: received.directory,
          requestId: c.req.header("X-Request-Id"),
        };
        if (!wait) return c.json(ingestResponse(await service.startIngestion(request), true), 202);
        const job = await service.ingestFiles(request);
        // Every file refused because a store went down during the job: answered like /upsert.
        if (job.state === "failed" && job.errors.length > 0 && job.errors.every((error) => error.code === "store_unavailable")) {
          throw new DocqaError("store_unavailable", `ingestion job ${job.jobId} failed: ${job.errors[0]?.message}`, {
            component: "chat-api",
          });
        }
        return c.json(ingestResponse(job, false), 200);
      } catch (error) {
        await rm(received.directory, { recursive: true, force: true });
        throw error;
      }
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/ingest/{jobId}",
      summary: "Ingestion job state",
      description: "State and counts of an ingestion job of the token's organisation; another organisation's job id answers 404.",
      ...authenticated,
      request: { params: jobParamsSchema },
      responses: {
        200: jsonResponse(ingestJobResponseSchema, "The job."),
        404: errorContent("No such job in the organisation (`not_found`)."),
        ...errors,
      },
    }),
    async (c) => {
      const { jobId } = c.req.valid("param");
      const auth = c.get("auth");
      const job = await service.getIngestionJob({ orgId: auth.orgId, principal: auth.principal }, jobId);
      if (!job) throw new DocqaError("not_found", `no ingestion job ${jobId} in this organisation`, { component: "chat-api" });
      return c.json(
        {
          jobId: job.jobId,
          state: job.state,
          success: job.state === "succeeded",
          documentsProcessed: job.documents,
          chunks: job.chunks,
          files: job.files,
          errors: job.errors,
          warnings: job.warnings,
          createdAt: job.createdAt,
          startedAt: job.startedAt,
          finishedAt: job.finishedAt,
          failure: job.failure,
        },
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/api/memory",
      summary: "Delete my conversation memory",
      description:
        "Deletes the caller's conversation memory in the token's organisation: their session and every conversation (`sessionId`) they started. Other users' memory is untouched.",
      ...authenticated,
      responses: { 200: jsonResponse(forgetResponseSchema, "What was deleted."), ...errors },
    }),
    async (c) => {
      const auth = c.get("auth");
      return c.json(await service.forgetUser({ orgId: auth.orgId, principal: auth.principal }), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/reindex",
      summary: "Vector index and reindex job of the organisation",
      description:
        "Which embedding model the token's organisation's vector index holds, compared with the configured one, and its latest reindex job (started with `docqa reindex --org <id>` or `service.reindex`, by any process) with its phase and progress. Read-only.",
      ...authenticated,
      responses: { 200: jsonResponse(reindexStatusResponseSchema, "The organisation's vector index and latest reindex job."), ...errors },
    }),
    async (c) => {
      const auth = c.get("auth");
      return c.json(await service.reindexStatus({ orgId: auth.orgId }), 200);
    },
  );

  addDocumentRoutes(app, service, { wire: setBDocuments, responses: setBResponses, authenticated, component: "chat-api" });

  return app;
}
