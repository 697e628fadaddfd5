/**
 * The one app factory of docqa's endpoint sets. It owns what every set does the same way, so a
 * set's package only defines routes, calls one service method per route and maps the result:
 *
 * - errors: `onError` answers a `DocqaError` with the status of {@link errorStatus}, Hono's own
 *   exceptions (malformed JSON, wrong `Content-Type`) with stable codes, anything else with 500
 *   `internal_error` (logged, never returned); the set renders each in its own body shape;
 * - schema validation failures: 400 `invalid_request` in the set's validation body;
 * - unknown routes: 404 `not_found`, and 405 `method_not_allowed` with `Allow` for a known path
 *   asked with another method (RFC 9110, section 15.5.6), in the set's body shape;
 * - `X-Request-Id`: 400 `invalid_request` unless it is {@link requestIdPattern} (it reaches logs,
 *   traces and the audit trail);
 * - request limits: 413 `payload_too_large` for a body beyond `MAX_REQUEST_BYTES` (a multipart
 *   upload: `MAX_UPLOAD_REQUEST_BYTES`), and 400 `json_too_deep` for a JSON body nested deeper
 *   than `MAX_JSON_DEPTH` (checked iteratively on what the route's schema keeps, or on the whole
 *   body when it fails the schema, before any other code reads it);
 * - bearer authentication and per-user rate limits of the routes that spread
 *   {@link DocqaApp.authenticated} into their `createRoute` (which also documents the bearer
 *   security scheme in the OpenAPI document);
 * - the reference pages: `/openapi.json` (OpenAPI 3.1), `/docs` (Swagger UI) and `/redoc`,
 *   served offline.
 *
 * Unknown routes are answered by the app's `notFound`, which Hono uses only in the outermost app:
 * when you mount a set in your own app (`app.route("/qa", predictRoutes(service))`), your app
 * answers paths it does not know.
 */

import { resolve } from "node:path";
import {
  assertJsonDepth,
  DocqaError,
  type DocqaErrorCode,
  type JwtSettings,
  type Logger,
  type PrincipalResolver,
  silentLogger,
} from "@docqa/core";
import { OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context, Hono, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { ZodError } from "zod";
import { allowedMethods } from "./allowed-methods.js";
import { type AuthVariables, bearerAuth } from "./bearer-auth.js";
import { type DescribedError, type DescribeErrorSettings, describeError } from "./describe-error.js";
import { type RateLimitSetting, rateLimit, rateLimitedMessage, rateLimitersFor } from "./rate-limit.js";
import { mountReferencePages } from "./reference-pages.js";

/**
 * An `X-Request-Id` a request may carry: 1 to 200 visible ASCII characters (`!` to `~`, no
 * spaces or control characters), enough for a UUID or a W3C trace id.
 */
export const requestIdPattern = /^[\x21-\x7E]{1,200}$/;

/** The `X-Request-Id` header as a route's `request.headers`, so the OpenAPI document declares it. */
export const requestIdHeadersSchema = z.object({
  "x-request-id": z
    .string()
    .regex(requestIdPattern)
    .optional()
    .openapi({
      param: { name: "x-request-id", in: "header" },
      description:
        "Correlation id of the request in docqa's logs, traces and audit trail: 1 to 200 visible ASCII characters; default a new UUID.",
      example: "7d5f2a9e-3c41-4b8e-a0f6-1e2d3c4b5a69",
    }),
});

/** The Hono environment of a docqa app: authenticated routes find the verified user in `c.var.auth`. */
export interface DocqaEnv {
  Variables: AuthVariables;
}

/** A set's error bodies. The status and code are decided by the factory; the set decides the shape. */
export interface ErrorFormat {
  /**
   * The JSON body of an error response, from its stable code and a message safe to show.
   *
   * @example
   * ```ts
   * body: (code, message) => ({ detail: message, code }) // set A: {"detail": ..., "code": ...}
   * ```
   */
  body(code: DocqaErrorCode, message: string): object;
  /** The JSON body of the 400 answering a request whose body, query or path failed its zod schema. */
  validation(error: ZodError): object;
  /** The message of 415 `unsupported_media_type`; default `the request body must be JSON (Content-Type: application/json)`. */
  unsupportedMediaTypeMessage?: DescribeErrorSettings["unsupportedMediaTypeMessage"];
  /** The message of 500 `internal_error`; default `internal server error`. */
  internalErrorMessage?: string | undefined;
}

/** The `info` of the OpenAPI document served at `/openapi.json`, also the title of `/docs` and `/redoc`. */
export interface ReferencePagesInfo {
  title: string;
  /** The version of the API, for example the package's version. */
  version: string;
  /** Markdown shown at the top of the reference pages. */
  description: string;
}

/** The limits {@link createDocqaApp} applies to every request (docs/deployment.md, "Limits"). */
export interface RequestLimits {
  /** `MAX_REQUEST_BYTES`: the largest body of a request that is not a multipart upload, in bytes (413 `payload_too_large`). */
  maxRequestBytes: number;
  /** `MAX_UPLOAD_REQUEST_BYTES`: the largest `multipart/form-data` body, in bytes (413 `payload_too_large`). */
  maxUploadRequestBytes: number;
  /** `MAX_JSON_DEPTH`: the deepest nesting of a JSON body, the body itself being level 1 (400 `json_too_deep`). */
  maxJsonDepth: number;
}

/** Options of {@link createDocqaApp}. */
export interface DocqaAppOptions {
  /** The access-token settings, read per request (the secret may be set after the app is built). */
  jwt: () => JwtSettings;
  /**
   * Where an authenticated principal's roles and groups come from; default the token's claims
   * (`principalFromClaims`: `role` and `roles`, `groups`).
   */
  resolvePrincipal?: PrincipalResolver | undefined;
  /** The request limits, read per request (like `jwt`, from settings loaded on first use). */
  limits: () => RequestLimits;
  /** Component named in logs and error messages, for example `predict-api`. */
  component: string;
  /** The set's error bodies. */
  errors: ErrorFormat;
  /**
   * Per-user rate limits of the authenticated routes, counted after authentication under the
   * token's organisation and e-mail; a 429 carries `Retry-After` and the set's error body with
   * code `rate_limited`. Default `false` (no limit).
   */
  rateLimit?: RateLimitSetting | undefined;
  /** Serve `/openapi.json`, `/docs` and `/redoc` with this `info`; default `false` (not served). */
  referencePages?: ReferencePagesInfo | false | undefined;
  /** Where server errors and rate-limit store failures are logged; default silent. */
  logger?: Logger | undefined;
  /**
   * The data directory (`DATA_DIR`), read per error: shown as `DATA_DIR` in every error message
   * a client receives, as configured and resolved. Default none (absolute paths are still cut
   * from the messages of server errors).
   */
  dataDirectory?: (() => string) | undefined;
  /**
   * Middleware run first on every request of the app, in order, before the body limit,
   * authentication and the routes (so it also sees 401, 404, 413 and 429 answers): for example
   * request tracing and metrics from `@docqa/observability`. Default none.
   */
  middleware?: readonly MiddlewareHandler[] | undefined;
}

/** What a route needs to be authenticated: spread it into `createRoute({ ...authenticated, ... })`. */
export interface AuthenticatedRoute {
  /** The route's OpenAPI security requirement: the bearer JWT scheme `bearerAuth`. */
  security: { bearerAuth: string[] }[];
  /** Bearer authentication (`c.var.auth`), then the per-user rate limit when one is set. */
  middleware: MiddlewareHandler<DocqaEnv>[];
}

/** What {@link createDocqaApp} returns. */
export interface DocqaApp {
  /** The app, with the error handling, body limit and reference pages in place: add routes with `app.openapi(...)`. */
  app: OpenAPIHono<DocqaEnv>;
  /** Spread into the `createRoute` of every route that takes the bearer token. */
  authenticated: AuthenticatedRoute;
  /**
   * Describes an error as the app's error handler does (status, code, message; server errors
   * logged), for errors that cannot become a response, such as one in a Server-Sent Events stream.
   */
  describeError(error: unknown, c?: Context): DescribedError;
}

/**
 * The body limit of a multipart upload, which is streamed to disk by its route and must never be
 * buffered: a `Content-Length` above `maxSize` is refused at once, and the body is counted as it
 * flows, failing the stream with `tooLarge()` once it passes `maxSize` (Hono's `bodyLimit` would
 * buffer a body sent without `Content-Length`).
 */
async function countUploadBytes(c: Context, maxSize: number, tooLarge: () => DocqaError, next: () => Promise<void>): Promise<void> {
  const length = c.req.header("Content-Length");
  if (length !== undefined && Number(length) > maxSize) throw tooLarge();
  const body = c.req.raw.body;
  if (body) {
    let size = 0;
    const counted = body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          size += chunk.byteLength;
          if (size > maxSize) controller.error(tooLarge());
          else controller.enqueue(chunk);
        },
      }),
    );
    const raw = c.req.raw;
    c.req.raw = new Request(raw.url, {
      method: raw.method,
      headers: raw.headers,
      body: counted,
      signal: raw.signal,
      duplex: "half",
    } as RequestInit);
  }
  await next();
}

/**
 * Creates the app of one endpoint set (module comment).
 *
 * @example
 * ```ts
 * const { app, authenticated } = createDocqaApp({
 *   jwt: () => server.jwt,
 *   limits: () => ({ ...server.limits, maxJsonDepth: service.config.ingestion.maxJsonDepth }),
 *   component: "my-api",
 *   errors: { body: (code, message) => ({ error: { code, message } }), validation: (error) => ({ error: { code: "invalid_request", message: error.message } }) },
 *   rateLimit: { perMinute: 100, perHour: 1000 },
 *   referencePages: { title: "My API", version: "1.0.0", description: "..." },
 * });
 * app.openapi(createRoute({ ...authenticated, method: "post", path: "/ask", ... }), async (c) => c.json(await service.predict(...), 200));
 * ```
 */
export function createDocqaApp(options: DocqaAppOptions): DocqaApp {
  const { component, errors } = options;
  const logger = options.logger ?? silentLogger;
  const dataDirectory = options.dataDirectory;
  const describeSettings: DescribeErrorSettings = {
    component,
    logger,
    unsupportedMediaTypeMessage: errors.unsupportedMediaTypeMessage,
    internalErrorMessage: errors.internalErrorMessage,
    privateDirectories: dataDirectory && (() => [dataDirectory(), resolve(dataDirectory())]),
  };
  const respond = (c: Context, error: unknown, headers: Record<string, string> = {}): Response => {
    const described = describeError(error, describeSettings, c);
    return c.json(errors.body(described.code, described.message), described.status, { ...described.headers, ...headers });
  };

  const app = new OpenAPIHono<DocqaEnv>({
    defaultHook: (result, c) => {
      // What the schema kept (on failure, the body as parsed): too deep a body is refused before
      // any code recurses into it. (@hono/zod-validator passes the parsed body as `data` on
      // failure too; the type leaves it out.)
      if (result.target === "json") {
        assertJsonDepth((result as { data?: unknown }).data, options.limits().maxJsonDepth, "the request body", component);
      }
      if (!result.success) return c.json(errors.validation(result.error), 400);
    },
  });
  app.onError((error, c) => respond(c, error));
  app.notFound((c) => {
    const allowed = allowedMethods(app, c.req.path);
    const method = c.req.method === "HEAD" ? "GET" : c.req.method;
    if (allowed.length > 0 && !allowed.includes(method)) {
      const message = `${c.req.method} is not allowed on ${c.req.path}; use ${allowed.join(", ")}`;
      return respond(c, new DocqaError("method_not_allowed", message, { component }), { Allow: allowed.join(", ") });
    }
    return respond(c, new DocqaError("not_found", `no route ${c.req.method} ${c.req.path}`, { component }));
  });

  for (const handler of options.middleware ?? []) app.use("*", handler);
  app.use("*", async (c, next) => {
    const requestId = c.req.header("X-Request-Id");
    if (requestId !== undefined && !requestIdPattern.test(requestId)) {
      throw new DocqaError("invalid_request", "X-Request-Id must be 1 to 200 visible ASCII characters (no spaces)", { component });
    }
    await next();
  });
  app.use("*", (c, next) => {
    const limits = options.limits();
    const upload = c.req.header("Content-Type")?.trim().toLowerCase().startsWith("multipart/form-data") === true;
    const maxSize = upload ? limits.maxUploadRequestBytes : limits.maxRequestBytes;
    const tooLarge = () =>
      new DocqaError(
        "payload_too_large",
        `the request body exceeds ${maxSize} bytes (${upload ? "MAX_UPLOAD_REQUEST_BYTES" : "MAX_REQUEST_BYTES"})`,
        {
          component,
        },
      );
    if (upload) return countUploadBytes(c, maxSize, tooLarge, next);
    return bodyLimit({
      maxSize,
      onError: () => {
        throw tooLarge();
      },
    })(c, next);
  });

  app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", { type: "http", scheme: "bearer", bearerFormat: "JWT" });
  const limiters = rateLimitersFor(options.rateLimit ?? false);
  const middleware: MiddlewareHandler<DocqaEnv>[] = [bearerAuth(options.jwt, options.resolvePrincipal)];
  if (limiters.length > 0) {
    middleware.push(
      rateLimit({ limiters, logger, onLimited: (c, decision) => c.json(errors.body("rate_limited", rateLimitedMessage(decision)), 429) }),
    );
  }

  if (options.referencePages) {
    const info = options.referencePages;
    app.doc31("/openapi.json", { openapi: "3.1.0", info: { title: info.title, version: info.version, description: info.description } });
    mountReferencePages(app as unknown as Hono, { title: info.title, openApiPath: "/openapi.json" });
  }

  return {
    app,
    authenticated: { security: [{ bearerAuth: [] }], middleware },
    describeError: (error, c) => describeError(error, describeSettings, c),
  };
}
