/**
 * Endpoint set A as Hono routes: `GET /healthz` (liveness), `GET /readyz` (readiness),
 * `POST /query`, `POST /predict`, `POST /upsert`, the documents API (`GET /documents`, `GET` and
 * `DELETE /documents/{doc_id}`), and, only when enabled, the development route
 * `POST /testpredict`; plus `/openapi.json`, `/docs` and `/redoc`. Routes parse and validate, call one service method, and
 * map the result; all logic lives in `@docqa/core`, and errors, unknown routes, the body limit,
 * authentication, rate limits and the reference pages are `@docqa/http`'s `createDocqaApp`. The
 * documents API is `@docqa/http`'s `addDocumentRoutes` with set A's wire shapes
 * (`documents-wire.ts`); the OpenAPI error prose is in `openapi-responses.ts`.
 * `/predict` and `/testpredict` also answer as Server-Sent Events (see `stream-prediction.ts`).
 */
import {
  DocqaError,
  type Logger,
  normalizeAccessName,
  type PredictResult,
  type Principal,
  type PrincipalResolver,
  type RagService,
} from "@docqa/core";
import {
  type AuthVariables,
  addDocumentRoutes,
  addReadinessRoute,
  createDocqaApp,
  type DocqaAppOptions,
  defaultJsonContentType,
  jsonBody,
  jsonResponse,
  loadServerConfig,
  type RateLimitSetting,
  requestIdHeadersSchema,
  type ServerConfig,
} from "@docqa/http";
import { createRoute } from "@hono/zod-openapi";
import type { Hono } from "hono";
import packageJson from "../package.json" with { type: "json" };
import { setADocuments } from "./documents-wire.js";
import { setAErrors } from "./error-responses.js";
import { authErrors, errorContent, modelErrors, predictionContent, setAResponses } from "./openapi-responses.js";
import {
  healthResponseSchema,
  intentRequestSchema,
  intentResponseSchema,
  predictRequestSchema,
  predictResponseSchema,
  predictResponseWire,
  predictTokenEventSchema,
  streamEventJsonSchema,
  testPredictRequestSchema,
  testPredictResponseSchema,
  upsertRequestSchema,
  upsertResponseSchema,
} from "./schemas.js";
import { streamPrediction, wantsEventStream } from "./stream-prediction.js";

/** Options of {@link predictRoutes}. */
export interface PredictRoutesOptions {
  /**
   * Server settings: access tokens (`JWT_*`), `TRUST_USER_INFO`, `ENABLE_TESTPREDICT`. Default
   * `loadServerConfig()` (the environment), read when the first request needs it.
   */
  server?: ServerConfig | undefined;
  /**
   * Serve `POST /testpredict` (no authentication; development only). Default
   * `ENABLE_TESTPREDICT`. Refused (`config_invalid`) when the server settings' `NODE_ENV` is
   * `production`.
   */
  enableTestPredict?: boolean;
  /**
   * The one organisation `/testpredict` answers from (a body naming another gets 403
   * `forbidden`); default `TESTPREDICT_ORG_ID` (`development`).
   */
  testPredictOrgId?: string;
  /**
   * Where an authenticated principal's roles and groups come from (a directory lookup, see
   * `createCachedPrincipalResolver`); default the token's `role`, `roles` and `groups` claims.
   */
  resolvePrincipal?: PrincipalResolver | undefined;
  /** Serve `/openapi.json`, `/docs` and `/redoc`; default true. */
  referencePages?: boolean;
  /**
   * Per-user rate limits of `/query`, `/predict` and `/upsert` (429 `rate_limited` in set A's
   * error shape): a `RateLimitPolicy`, `{ limiters }` for shared counters, or `false`. Default
   * `false` (set A is not limited; `docqa serve` limits it with `RATE_LIMIT_SET_A=true`).
   */
  rateLimit?: RateLimitSetting | undefined;
  logger?: Logger;
  /** Middleware run first on every request (`DocqaAppOptions.middleware`), for example request metrics and tracing; default none. */
  middleware?: DocqaAppOptions["middleware"];
}

/** Extracts the question from `query`: a string, or the first string among `query`, `text`, `question`, `input` of a mapping. */
export function extractQuery(query: string | Record<string, unknown>): string {
  if (typeof query === "string") return query;
  for (const key of ["query", "text", "question", "input"]) {
    const value = query[key];
    if (typeof value === "string") return value;
  }
  throw new DocqaError(
    "invalid_request",
    "query must be a string or a mapping with a string field 'query', 'text', 'question' or 'input'",
    {
      component: "predict-api",
    },
  );
}

/** The principal for a request: the token's, after checking the body names the same user (both compared in `normalizeAccessName` form). */
function principalFor(
  config: Pick<ServerConfig, "trustUserInfo">,
  tokenPrincipal: Principal,
  userName: string,
  realName?: string,
): Principal {
  const named = normalizeAccessName(userName);
  if (!config.trustUserInfo && named !== normalizeAccessName(tokenPrincipal.userName)) {
    throw new DocqaError(
      "principal_mismatch",
      "user_info.user_name must be the token's email (set TRUST_USER_INFO=true to act on behalf of other users)",
      {
        component: "predict-api",
      },
    );
  }
  return { ...tokenPrincipal, userName: config.trustUserInfo ? named : tokenPrincipal.userName, realName };
}

/** The `/predict` body ({@link predictResponse}): what {@link predictResponseWire} derives, with `input`. */
export type PredictResponseBody = ReturnType<typeof predictResponseWire.toWire>;

/**
 * The `/predict` body for a service result: the spec's fields, then docqa's additions
 * (docs/http-api.md), derived from the result schema ({@link predictResponseWire}: the fields marked for
 * set A, snake_case) plus `input`, the query as received. Exported so that other clients of the
 * service (`docqa ask --file`) write exactly what set A answers.
 */
export function predictResponse(result: PredictResult): PredictResponseBody {
  return predictResponseWire.toWire(result, { input: result.originalQuery });
}

/**
 * Builds the set A app over `service`. Mount it with `app.route("/", predictRoutes(service))`
 * or serve it directly.
 *
 * @example
 * ```ts
 * const service = createRagService({ config: loadConfig() });
 * serve({ fetch: predictRoutes(service).fetch, port: 8002 });
 * ```
 */
export function predictRoutes(service: RagService, options: PredictRoutesOptions = {}): Hono<{ Variables: AuthVariables }> {
  let loaded: ServerConfig | undefined = options.server;
  const server = (): ServerConfig => (loaded ??= loadServerConfig());
  const { app, authenticated, describeError } = createDocqaApp({
    jwt: () => server().jwt,
    resolvePrincipal: options.resolvePrincipal,
    limits: () => ({ ...server().limits, maxJsonDepth: service.config.ingestion.maxJsonDepth }),
    component: "predict-api",
    errors: setAErrors,
    rateLimit: options.rateLimit ?? false,
    referencePages: (options.referencePages ?? true) && {
      title: "docqa: endpoint set A",
      version: packageJson.version,
      description:
        'Question answering over an organisation\'s documents, with citations and per-document access control. Authenticate with `Authorization: Bearer <JWT>`; errors are `{"detail": ..., "code": ...}`.',
    },
    logger: options.logger,
    middleware: options.middleware,
    dataDirectory: () => service.config.stores.dataDir,
  });
  const errorEvent = (error: unknown) => {
    const { code, message } = describeError(error);
    return setAErrors.body(code, message);
  };
  app.use("*", defaultJsonContentType());
  app.openAPIRegistry.register("PredictTokenEvent", predictTokenEventSchema);
  app.openAPIRegistry.registerComponent("schemas", "PredictStreamEvent", streamEventJsonSchema("PredictResponse"));
  app.openAPIRegistry.registerComponent("schemas", "TestPredictStreamEvent", streamEventJsonSchema("TestPredictResponse"));

  app.openapi(
    createRoute({
      method: "get",
      path: "/healthz",
      summary: "Liveness check",
      description:
        "Returns `status: ok` while the process serves requests, without asking any backend (use `/readyz` as the readiness probe); `detail` tells whether embeddings are loaded (else retrieval is BM25 only).",
      responses: { 200: jsonResponse(healthResponseSchema, "The service is alive.") },
    }),
    async (c) => c.json({ status: "ok" as const, detail: await service.health() }, 200),
  );

  addReadinessRoute(app, service);

  app.openapi(
    createRoute({
      method: "post",
      path: "/query",
      summary: "Intent detection",
      description: "Decides whether the question-answering pipeline is needed before calling `/predict`.",
      ...authenticated,
      request: { body: jsonBody(intentRequestSchema) },
      responses: { 200: jsonResponse(intentResponseSchema, "The detected intent."), ...authErrors },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const auth = c.get("auth");
      const principal = principalFor(server(), auth.principal, body.user_info.user_name, body.user_info.real_name);
      const intent = await service.detectIntent({ orgId: auth.orgId, principal, text: body.text });
      return c.json(
        {
          ...intent,
          input: body.text,
          user_info: {
            user_name: body.user_info.user_name,
            real_name: body.user_info.real_name ?? "",
            org_id: auth.orgId,
            current_roles: [...principal.roles],
            current_groups: [...principal.groups],
          },
        },
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/predict",
      summary: "Question answering",
      description:
        "Answers a question from the organisation's documents the user may read, with citations `[Source: doc_n]` resolved in `sources`. Streams as Server-Sent Events when asked.",
      ...authenticated,
      request: { headers: requestIdHeadersSchema, body: jsonBody(predictRequestSchema) },
      responses: {
        200: predictionContent(predictResponseSchema, "PredictStreamEvent", "The answer and its cited sources."),
        ...authErrors,
        ...modelErrors,
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const auth = c.get("auth");
      const principal = principalFor(server(), auth.principal, body.user_info.user_name, body.user_info.real_name);
      const predict = async (onToken?: (text: string) => void) =>
        predictResponse(
          await service.predict({
            orgId: auth.orgId,
            principal,
            query: extractQuery(body.query),
            threadId: body.thread_id,
            requestId: c.req.header("X-Request-Id"),
            signal: c.req.raw.signal,
            onToken,
          }),
        );
      if (wantsEventStream(c, body.stream)) return streamPrediction(c, predict, errorEvent);
      return c.json(await predict(), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/upsert",
      summary: "Insert or update documents",
      description:
        "Chunks, embeds and stores documents in the token's organisation. Each document replaces its previous version atomically. A new document is owned by `user_email`; a stored one may be replaced only by its owner or an administrator (`ADMIN_ROLES`), and only administrators may set `metadata.owner_id` to somebody else. One refused document refuses the request (403 `forbidden`, nothing written). A change of `acl` or `owner_id` alone re-stamps the stored chunks without re-embedding.",
      ...authenticated,
      request: { body: jsonBody(upsertRequestSchema) },
      responses: { 200: jsonResponse(upsertResponseSchema, "The documents are stored."), ...authErrors },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const auth = c.get("auth");
      const principal = principalFor(server(), auth.principal, body.user_email);
      const result = await service.upsert({ orgId: auth.orgId, principal, uploader: principal.userName, documents: body.documents });
      return c.json({ status: "success" as const, user: body.user_email, num_chunks: String(result.numChunks) }, 200);
    },
  );

  addDocumentRoutes(app, service, { wire: setADocuments, responses: setAResponses, authenticated, component: "predict-api" });

  if (options.enableTestPredict ?? server().enableTestPredict) {
    if (server().nodeEnv?.trim().toLowerCase() === "production") {
      throw new DocqaError("config_invalid", "/testpredict answers without a token and is refused when NODE_ENV=production", {
        component: "predict-api",
      });
    }
    const testOrgId = options.testPredictOrgId ?? server().testPredictOrgId;
    app.openapi(
      createRoute({
        method: "post",
        path: "/testpredict",
        summary: "Development variant of /predict (no authentication)",
        description:
          "For development only: answers without checking a token, as the user named in `user_info` (no roles or groups), from the one development organisation (`TESTPREDICT_ORG_ID`; a body naming another gets 403 `forbidden`), without conversation memory (nothing read or written; `thread_id` is echoed). Same body limits as `/predict`. Served only when `ENABLE_TESTPREDICT=true`, never with `NODE_ENV=production`.",
        request: { body: jsonBody(testPredictRequestSchema) },
        responses: {
          200: predictionContent(testPredictResponseSchema, "TestPredictStreamEvent", "The answer, its sources and the time taken."),
          400: authErrors[400],
          403: errorContent("`forbidden`: `org_id` names another organisation than `TESTPREDICT_ORG_ID`."),
          413: authErrors[413],
          415: authErrors[415],
          500: authErrors[500],
          503: authErrors[503],
          ...modelErrors,
        },
      }),
      async (c) => {
        const body = c.req.valid("json");
        const started = performance.now();
        if (body.org_id !== undefined && body.org_id !== testOrgId) {
          throw new DocqaError("forbidden", "/testpredict answers only from its development organisation (TESTPREDICT_ORG_ID)", {
            component: "predict-api",
          });
        }
        const predict = async (onToken?: (text: string) => void) => {
          const result = await service.predict({
            orgId: testOrgId,
            principal: { userName: body.user_info.user_name, realName: body.user_info.real_name, roles: [], groups: [] },
            query: extractQuery(body.query),
            threadId: body.thread_id,
            memory: false,
            signal: c.req.raw.signal,
            onToken,
          });
          return { ...predictResponse(result), prediction_time: (performance.now() - started) / 1000 };
        };
        if (wantsEventStream(c, body.stream)) return streamPrediction(c, predict, errorEvent);
        return c.json(await predict(), 200);
      },
    );
  }

  return app;
}
