import { DocqaError, type JwtSettings, type Logger, mintAccessToken } from "@docqa/core";
import { createRoute, z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { createDocqaApp, type DocqaAppOptions, type ErrorFormat } from "./create-docqa-app.js";
import { createMemoryRateLimiter, type RateLimiter } from "./rate-limit.js";

const secret = "create-docqa-app-secret-0123456789-0123456789";
const jwt: JwtSettings = { secret, algorithm: "HS256", issuer: "oauth-app" };

/** A body shape unlike either endpoint set's, so the tests show the factory uses the given one. */
const errors: ErrorFormat = {
  body: (code, message) => ({ problem: { code, message } }),
  validation: (error) => ({ problem: { code: "invalid_request", fields: error.issues.map((issue) => issue.path.join(".")) } }),
};

function recordingLogger(): Logger & { errors: string[]; fields: Record<string, unknown>[]; debugs: string[] } {
  const recorded: string[] = [];
  const fields: Record<string, unknown>[] = [];
  const debugs: string[] = [];
  return {
    errors: recorded,
    fields,
    debugs,
    debug: (message: string) => debugs.push(message),
    info() {},
    warn() {},
    error: (message: string, entry?: Record<string, unknown>) => {
      recorded.push(message);
      fields.push(entry ?? {});
    },
  };
}

/** An app with one public route, one authenticated route with a JSON body, and routes that fail. */
function testApp(options: Partial<DocqaAppOptions> = {}) {
  const { app, authenticated, describeError } = createDocqaApp({
    jwt: () => jwt,
    limits: () => ({ maxRequestBytes: 64, maxUploadRequestBytes: 400, maxJsonDepth: 4 }),
    component: "test-api",
    errors,
    ...options,
  });
  app.openapi(
    createRoute({
      method: "get",
      path: "/status",
      responses: { 200: { content: { "application/json": { schema: z.object({ ok: z.boolean() }) } }, description: "ok" } },
    }),
    (c) => c.json({ ok: true }, 200),
  );
  app.openapi(
    createRoute({
      method: "post",
      path: "/echo",
      ...authenticated,
      request: {
        body: {
          content: { "application/json": { schema: z.object({ text: z.string(), extra: z.unknown().optional() }) } },
          required: true,
        },
      },
      responses: {
        200: { content: { "application/json": { schema: z.object({ text: z.string(), user: z.string() }) } }, description: "echo" },
      },
    }),
    (c) => c.json({ text: c.req.valid("json").text, user: c.get("auth").principal.userName }, 200),
  );
  app.get("/forbidden", () => {
    throw new DocqaError("principal_mismatch", "not yours", { component: "test-api" });
  });
  app.get("/down", () => {
    throw new DocqaError("store_unavailable", "the store is down", { component: "test-api" });
  });
  app.get("/bug", () => {
    throw new TypeError("undefined is not a function");
  });
  app.post("/upload", async (c) => c.json({ bytes: (await c.req.arrayBuffer()).byteLength }));
  app.get("/busy", () => {
    throw new DocqaError("ingestion_busy", "16 ingestion requests are in progress", { component: "ingestion", retryAfterSeconds: 2.2 });
  });
  app.get("/lazy-load", () => {
    // What Node's module loader throws when a module is loaded with no descriptor left.
    throw new Error("Cannot read package config /srv/app/node_modules/some-package/package.json: too many open files.");
  });
  app.get("/cannot-open", () => {
    throw new DocqaError(
      "store_unavailable",
      "cannot open /srv/docqa-data/docs_collection_org1.sqlite: the process has run out of file descriptors (EMFILE)",
      { component: "embedded-store" },
    );
  });
  app.get("/bad-path", () => {
    throw new DocqaError("invalid_request", "no file /srv/docqa-data/uploads/x.txt; see /api/documents/{id}", { component: "test-api" });
  });
  app.delete("/status", (c) => c.body(null, 204));
  return { app, describeError };
}

const token = (email = "ann@example.org") => mintAccessToken(jwt, { email, orgId: "org-1" });
const echo = async (app: ReturnType<typeof testApp>["app"], body: string, headers: Record<string, string> = {}) =>
  app.request("/echo", {
    method: "POST",
    headers: { Authorization: `Bearer ${await token()}`, "Content-Type": "application/json", ...headers },
    body,
  });

describe("createDocqaApp errors, in the set's own body shape", () => {
  it("maps a DocqaError to the status of errorStatus, and a bug to 500 internal_error without its details", async () => {
    const logger = recordingLogger();
    const { app } = testApp({ logger });
    const forbidden = await app.request("/forbidden");
    expect(forbidden.status).toBe(403);
    expect(await forbidden.json()).toEqual({ problem: { code: "principal_mismatch", message: "not yours" } });
    const down = await app.request("/down");
    expect(down.status).toBe(503);
    expect(await down.json()).toEqual({ problem: { code: "store_unavailable", message: "the store is down" } });
    const bug = await app.request("/bug");
    expect(bug.status).toBe(500);
    expect(await bug.json()).toEqual({ problem: { code: "internal_error", message: "internal server error" } });
    expect(logger.errors).toEqual(["[docqa] [test-api] the store is down", "unhandled error: undefined is not a function"]);
    expect(logger.fields[0]).toMatchObject({
      component: "test-api",
      code: "store_unavailable",
      error: "[docqa] [test-api] the store is down",
    });
    expect(logger.fields[0]?.stack).toMatch(/^DocqaError: \[docqa\] \[test-api\] the store is down\n {4}at /);
    expect(logger.fields[1]).toMatchObject({ component: "test-api", code: "internal_error", error: "undefined is not a function" });
    expect(logger.fields[1]?.stack).toMatch(/^TypeError: undefined is not a function\n {4}at /);
    // A client error is logged at debug, never at error.
    expect(logger.debugs).toEqual(["[docqa] [test-api] not yours"]);
  });

  it("sends Retry-After (whole seconds, rounded up) with an error that carries retryAfterSeconds", async () => {
    const { app } = testApp();
    const busy = await app.request("/busy");
    expect(busy.status).toBe(503);
    expect(busy.headers.get("Retry-After")).toBe("3");
    expect(await busy.json()).toEqual({ problem: { code: "ingestion_busy", message: "16 ingestion requests are in progress" } });
  });

  it("answers an error of a process out of file descriptors (a module loaded on first use) 503 resource_exhausted, not 500", async () => {
    const logger = recordingLogger();
    const { app } = testApp({ logger });
    const response = await app.request("/lazy-load");
    expect(response.status).toBe(503);
    expect(response.headers.get("Retry-After")).toBe("5");
    expect(await response.json()).toEqual({
      problem: { code: "resource_exhausted", message: "the server has run out of file descriptors (EMFILE); retry later" },
    });
    expect(logger.fields[0]).toMatchObject({ code: "resource_exhausted" });
    const cause = new Error("open failed", {
      cause: Object.assign(new Error("EMFILE: too many open files, open 'x'"), { code: "EMFILE" }),
    });
    expect(testApp().describeError(cause)).toMatchObject({ status: 503, code: "resource_exhausted" });
  });

  it("never shows the data directory in an error body, and no absolute path in a server error's", async () => {
    const { app } = testApp({ dataDirectory: () => "/srv/docqa-data/" });
    const open = (await (await app.request("/cannot-open")).json()) as { problem: { message: string } };
    expect(open.problem.message).toBe(
      "cannot open DATA_DIR/docs_collection_org1.sqlite: the process has run out of file descriptors (EMFILE)",
    );
    // A client error keeps route paths; the data directory is still hidden.
    const bad = (await (await app.request("/bad-path")).json()) as { problem: { message: string } };
    expect(bad.problem.message).toBe("no file DATA_DIR/uploads/x.txt; see /api/documents/{id}");
    // Without a data directory, a server error's absolute paths are cut to their last segment.
    const unconfigured = (await (await testApp().app.request("/cannot-open")).json()) as { problem: { message: string } };
    expect(unconfigured.problem.message).toBe(
      "cannot open docs_collection_org1.sqlite: the process has run out of file descriptors (EMFILE)",
    );
  });

  it("answers an X-Request-Id that is not 1 to 200 visible ASCII characters 400 invalid_request, before authentication", async () => {
    const { app } = testApp();
    for (const requestId of ["has space", "x".repeat(201), "", "ünïcode"]) {
      const response = await app.request("/echo", { method: "POST", headers: { "X-Request-Id": requestId }, body: "{}" });
      expect(response.status, JSON.stringify(requestId)).toBe(400);
      expect(await response.json()).toEqual({
        problem: { code: "invalid_request", message: "X-Request-Id must be 1 to 200 visible ASCII characters (no spaces)" },
      });
    }
    expect((await echo(app, '{"text": "hi"}', { "X-Request-Id": "7d5f2a9e-3c41-4b8e-a0f6-1e2d3c4b5a69" })).status).toBe(200);
  });

  it("answers 401 with WWW-Authenticate on an authenticated route without a token, and 503 without JWT_SECRET", async () => {
    const { app } = testApp();
    const missing = await app.request("/echo", { method: "POST", body: "{}" });
    expect(missing.status).toBe(401);
    expect(missing.headers.get("WWW-Authenticate")).toBe("Bearer");
    expect(((await missing.json()) as { problem: { code: string } }).problem.code).toBe("missing_token");
    const unconfigured = createDocqaApp({
      jwt: () => ({ ...jwt, secret: undefined }),
      limits: () => ({ maxRequestBytes: 64, maxUploadRequestBytes: 400, maxJsonDepth: 4 }),
      component: "test-api",
      errors,
    });
    unconfigured.app.use("/echo", ...unconfigured.authenticated.middleware);
    unconfigured.app.post("/echo", (c) => c.text("unreachable"));
    const response = await unconfigured.app.request("/echo", { method: "POST", headers: { Authorization: `Bearer ${await token()}` } });
    expect(response.status).toBe(503);
    expect(((await response.json()) as { problem: { code: string } }).problem.code).toBe("auth_not_configured");
  });

  it("answers schema failures with the set's validation body, malformed JSON with invalid_json, other media types with 415", async () => {
    const { app } = testApp({ errors: { ...errors, unsupportedMediaTypeMessage: (c) => `no ${c?.req.header("Content-Type")} here` } });
    const invalid = await echo(app, JSON.stringify({ text: 7 }));
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toEqual({ problem: { code: "invalid_request", fields: ["text"] } });
    const malformed = await echo(app, "{");
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toEqual({ problem: { code: "invalid_json", message: "the request body is not valid JSON" } });
    const form = await echo(app, "text=hello", { "Content-Type": "application/x-www-form-urlencoded" });
    expect(form.status).toBe(415);
    expect(await form.json()).toEqual({
      problem: { code: "unsupported_media_type", message: "no application/x-www-form-urlencoded here" },
    });
    const ok = await echo(app, JSON.stringify({ text: "hello" }));
    expect(await ok.json()).toEqual({ text: "hello", user: "ann@example.org" });
  });

  it("answers 413 payload_too_large for a JSON body over MAX_REQUEST_BYTES, and a multipart one over MAX_UPLOAD_REQUEST_BYTES", async () => {
    const { app } = testApp();
    const response = await echo(app, JSON.stringify({ text: "x".repeat(64) }));
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({
      problem: { code: "payload_too_large", message: "the request body exceeds 64 bytes (MAX_REQUEST_BYTES)" },
    });
    // A multipart body is counted as it streams (never buffered by the limit): over 400 bytes fails while read.
    const upload = async (content: string, headers: Record<string, string> = {}) => {
      const form = new FormData();
      form.append("files", new File([content], "a.txt"));
      // Sent as bytes: undici's own FormData stream fails when cancelled half-way (a test-only artefact).
      const encoded = new Response(form);
      const body = new Uint8Array(await encoded.arrayBuffer());
      return app.request("/upload", {
        method: "POST",
        body,
        headers: { "Content-Type": encoded.headers.get("Content-Type") as string, ...headers },
      });
    };
    const over = await upload("y".repeat(500));
    expect(over.status).toBe(413);
    expect(await over.json()).toEqual({
      problem: { code: "payload_too_large", message: "the request body exceeds 400 bytes (MAX_UPLOAD_REQUEST_BYTES)" },
    });
    // A Content-Length above the limit is refused before reading.
    const declared = await upload("y", { "Content-Length": "401" });
    expect(declared.status).toBe(413);
    // Above MAX_REQUEST_BYTES (64) but within MAX_UPLOAD_REQUEST_BYTES: read in full.
    const within = await upload("y".repeat(70));
    expect(within.status).toBe(200);
    expect(((await within.json()) as { bytes: number }).bytes).toBeGreaterThan(70);
  });

  it("answers 400 json_too_deep for a JSON body nested deeper than MAX_JSON_DEPTH (4 here), valid or not", async () => {
    const logger = recordingLogger();
    const { app } = testApp({ logger, limits: () => ({ maxRequestBytes: 100_000, maxUploadRequestBytes: 100_000, maxJsonDepth: 4 }) });
    const nested = (depth: number) => `{"text":"x","extra":${"[".repeat(depth - 1)}1${"]".repeat(depth - 1)}}`;
    const fits = await echo(app, nested(4));
    expect(fits.status).toBe(200);
    // Too deep and valid; too deep and invalid (the body is an array, not an object).
    for (const body of [nested(5), `${"[".repeat(5000)}${"]".repeat(5000)}`]) {
      const deep = await echo(app, body);
      expect(deep.status).toBe(400);
      expect(await deep.json()).toEqual({
        problem: { code: "json_too_deep", message: "the request body is nested more than 4 levels deep (MAX_JSON_DEPTH)" },
      });
    }
    expect(logger.errors).toEqual([]);
  });

  it("describes errors for streams as the error handler does", () => {
    const logger = recordingLogger();
    const { describeError } = testApp({ logger, errors: { ...errors, internalErrorMessage: "Internal Server Error" } });
    expect(describeError(new DocqaError("model_timeout", "the model did not answer", { component: "chat-model" }))).toEqual({
      status: 504,
      code: "model_timeout",
      message: "the model did not answer",
      headers: {},
    });
    expect(describeError(new Error("boom"))).toEqual({
      status: 500,
      code: "internal_error",
      message: "Internal Server Error",
      headers: {},
    });
    expect(logger.errors).toEqual(["[docqa] [chat-model] the model did not answer", "unhandled error: boom"]);
  });
});

describe("createDocqaApp unknown routes", () => {
  it("answers an unknown path 404 not_found, for any method, before authentication", async () => {
    const { app } = testApp();
    for (const method of ["GET", "POST", "PUT"]) {
      const response = await app.request("/nowhere", { method });
      expect(response.status).toBe(404);
      expect(response.headers.get("Content-Type")).toContain("application/json");
      expect(await response.json()).toEqual({ problem: { code: "not_found", message: `no route ${method} /nowhere` } });
    }
  });

  it("answers a known path asked with another method 405 method_not_allowed with Allow, before authentication", async () => {
    const { app } = testApp();
    const get = await app.request("/echo");
    expect(get.status).toBe(405);
    expect(get.headers.get("Allow")).toBe("POST");
    expect(await get.json()).toEqual({ problem: { code: "method_not_allowed", message: "GET is not allowed on /echo; use POST" } });
    const put = await app.request("/status", { method: "PUT" });
    expect(put.status).toBe(405);
    expect(put.headers.get("Allow")).toBe("GET, HEAD, DELETE");
    expect((await app.request("/status", { method: "HEAD" })).status).toBe(200);
    expect((await app.request("/status", { method: "DELETE" })).status).toBe(204);
  });

  it("answers a route's own c.notFound() 404, not 405", async () => {
    const { app } = testApp({ referencePages: { title: "Test", version: "1.0.0", description: "A test." } });
    const missing = await app.request("/docs/assets/nothing.js");
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ problem: { code: "not_found", message: "no route GET /docs/assets/nothing.js" } });
  });
});

describe("createDocqaApp rate limits", () => {
  it("limits authenticated routes per user after authentication, in the set's body shape; public routes are not counted", async () => {
    const { app } = testApp({ rateLimit: { perMinute: 2, perHour: 10 } });
    const unauthenticated = await app.request("/echo", { method: "POST", body: "{}" });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get("RateLimit-Limit")).toBeNull();
    expect((await echo(app, JSON.stringify({ text: "1" }))).headers.get("RateLimit-Remaining")).toBe("1");
    expect((await echo(app, JSON.stringify({ text: "2" }))).status).toBe(200);
    const limited = await echo(app, JSON.stringify({ text: "3" }));
    expect(limited.status).toBe(429);
    expect(limited.headers.get("Retry-After")).toBe("60");
    expect(limited.headers.get("RateLimit-Policy")).toBe("2;w=60, 10;w=3600");
    expect(await limited.json()).toEqual({
      problem: { code: "rate_limited", message: "rate limit exceeded: 2 requests per minute per user; retry after 60 s" },
    });
    const status = await app.request("/status");
    expect(status.status).toBe(200);
    expect(status.headers.get("RateLimit-Limit")).toBeNull();
  });

  it("takes limiters of any implementation of RateLimiter, and none by default", async () => {
    const keys: string[] = [];
    const memory = createMemoryRateLimiter({ limit: 1, windowSeconds: 10 });
    const recording: RateLimiter = {
      consume: (key) => {
        keys.push(key);
        return memory.consume(key);
      },
    };
    const { app } = testApp({ rateLimit: { limiters: [recording] } });
    expect((await echo(app, JSON.stringify({ text: "1" }))).status).toBe(200);
    expect((await echo(app, JSON.stringify({ text: "2" }))).status).toBe(429);
    expect(keys).toEqual(["org-1:ann@example.org", "org-1:ann@example.org"]);
    const unlimited = testApp().app;
    for (let index = 0; index < 3; index++) {
      const response = await echo(unlimited, JSON.stringify({ text: "x" }));
      expect(response.status).toBe(200);
      expect(response.headers.get("RateLimit-Limit")).toBeNull();
    }
  });
});

describe("createDocqaApp reference pages", () => {
  it("serves /openapi.json with every route and the bearer scheme, and /docs and /redoc offline", async () => {
    const { app } = testApp({ referencePages: { title: "Test <API>", version: "1.2.3", description: "A test." } });
    const document = (await (await app.request("/openapi.json")).json()) as {
      openapi: string;
      info: unknown;
      paths: Record<string, Record<string, { security?: unknown }>>;
      components: { securitySchemes: unknown };
    };
    expect(document.openapi).toBe("3.1.0");
    expect(document.info).toEqual({ title: "Test <API>", version: "1.2.3", description: "A test." });
    expect(Object.keys(document.paths)).toEqual(["/status", "/echo"]);
    expect(document.paths["/echo"]?.post?.security).toEqual([{ bearerAuth: [] }]);
    expect(document.paths["/status"]?.get?.security).toBeUndefined();
    expect(document.components.securitySchemes).toEqual({ bearerAuth: { type: "http", scheme: "bearer", bearerFormat: "JWT" } });
    for (const page of ["/docs", "/redoc"]) {
      const response = await app.request(page);
      expect(response.status).toBe(200);
      expect(response.headers.get("Content-Security-Policy")).toContain("default-src 'self'");
      expect(await response.text()).toContain("<title>Test &#60;API&#62;</title>");
    }
  });

  it("serves none of them by default", async () => {
    const { app } = testApp();
    for (const page of ["/openapi.json", "/docs", "/redoc"]) expect((await app.request(page)).status).toBe(404);
  });
});
