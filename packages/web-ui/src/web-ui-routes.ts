/**
 * The web page's routes, mounted by `docqa serve` under `/ui` on both endpoint sets: the page,
 * its assets, and the small JSON API only the page uses (`/ui/api/...`; not a public API, it
 * changes with the page). Built with `@docqa/http`'s `createDocqaApp`, so errors, the body
 * limit, bearer authentication and per-user rate limits behave as on the sets; every handler
 * validates, calls one service method and maps the result.
 *
 * | Route | Auth | Does |
 * |---|---|---|
 * | `GET /` | no | the page |
 * | `GET /assets/{name}` | no | `app.js`, `app.css` |
 * | `GET /api/config` | no | the set, the version, whether development tokens can be minted, the upload limit and file types |
 * | `POST /api/dev-token` | no | mints a token (`WEB_UI_DEV_TOKENS=true`, never in production) |
 * | `GET /api/me` | yes | the token's user, organisation, roles and groups |
 * | `POST /api/ask` | yes | `predict`, with citations resolved to passages, titles and file names |
 * | `POST /api/upload` | yes | starts an ingestion job for the uploaded files (202) |
 * | `GET /api/jobs/{jobId}` | yes | the job |
 * | `GET /api/documents?q=&cursor=` | yes | the documents the user may read, a page at a time (`nextCursor`) |
 * | `GET /api/status` | yes | health, backends, counts of the user's organisation |
 */
import { randomUUID } from "node:crypto";
import { rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import { DocqaError, type Logger, mintAccessToken, type RagService } from "@docqa/core";
import { formatFromName, supportedExtensions, supportedFormats, uploadedFileSources } from "@docqa/core/ingestion";
import { type AuthVariables, createDocqaApp, type ErrorFormat, type RateLimitSetting, receiveUpload, type ServerConfig } from "@docqa/http";
import type { Context, Hono } from "hono";
import { z } from "zod";
import packageJson from "../package.json" with { type: "json" };
import { uiAnswer } from "./ui-answer.js";
import type { UiConfig, UiDocumentList } from "./ui-api-types.js";
import { readWebUiAsset, webUiContentSecurityPolicy, webUiPage } from "./ui-assets.js";
import { catalogueDocuments, type ListDocuments } from "./ui-documents.js";

/** Options of {@link webUiRoutes}. */
export interface WebUiRoutesOptions {
  /** Server settings: access tokens (`JWT_*`) and `WEB_UI_DEV_TOKENS`. */
  server: ServerConfig;
  /** The endpoint set the page is served on (`a` or `b`), shown in its header. */
  set: string;
  /**
   * The last path segment the routes are mounted under, for the page's relative asset URLs;
   * default `ui` (`app.route("/ui", webUiRoutes(...))`).
   */
  mount?: string | undefined;
  /** Per-user rate limits of `/api/*` (the set's limiters, so the page draws on the same budget); default none. */
  rateLimit?: RateLimitSetting | undefined;
  /**
   * Lists the documents a user may read: a documents API when the service has one; default
   * {@link searchDocuments} (the documents of the best chunks for the words typed).
   */
  listDocuments?: ListDocuments | undefined;
  /** The `NODE_ENV` the server runs under; development tokens are refused when `production`. Default `process.env.NODE_ENV`. */
  nodeEnvironment?: string | undefined;
  logger?: Logger | undefined;
}

/** The page's error bodies: `{"error": {"code", "message"}}`, as set B. */
const webUiErrors: ErrorFormat = {
  body: (code, message) => ({ error: { code, message } }),
  validation: (error) => ({ error: { code: "invalid_request", message: error.issues.map((issue) => issue.message).join("; ") } }),
};

const askSchema = z.object({
  question: z.string().min(1, "type a question"),
  threadId: z.uuid().optional(),
});

const devTokenSchema = z.object({
  email: z.email(),
  orgId: z.string().min(1),
  roles: z.array(z.string().min(1)).max(20).default([]),
  groups: z.array(z.string().min(1)).max(50).default([]),
});

async function parseJson<T extends z.ZodType>(c: Context, schema: T): Promise<z.output<T>> {
  const parsed = schema.safeParse(await c.req.json());
  if (!parsed.success) {
    const message = parsed.error.issues.map((issue) => `${issue.path.join(".") || "body"}: ${issue.message}`).join("; ");
    throw new DocqaError("invalid_request", message, { component: "web-ui" });
  }
  return parsed.data;
}

/** Whether development tokens may be minted: the flag is on, a secret is configured, and not in production. */
export function devTokensEnabled(server: ServerConfig, nodeEnvironment: string | undefined): boolean {
  return server.webUiDevTokens && Boolean(server.jwt.secret) && nodeEnvironment !== "production";
}

/**
 * Builds the page's routes over `service`. Mount them: `app.route("/ui", webUiRoutes(service, { server, set: "b" }))`.
 *
 * @example
 * ```ts
 * const app = chatRoutes(service, { server });
 * app.route("/ui", webUiRoutes(service, { server, set: "b" }));
 * ```
 */
export function webUiRoutes(service: RagService, options: WebUiRoutesOptions): Hono<{ Variables: AuthVariables }> {
  const { server } = options;
  const mount = options.mount ?? "ui";
  const listDocuments = options.listDocuments ?? catalogueDocuments(service);
  const mayMint = devTokensEnabled(server, options.nodeEnvironment ?? process.env.NODE_ENV);
  const { app, authenticated } = createDocqaApp({
    jwt: () => server.jwt,
    limits: () => ({ ...server.limits, maxJsonDepth: service.config.ingestion.maxJsonDepth }),
    component: "web-ui",
    errors: webUiErrors,
    rateLimit: options.rateLimit ?? false,
    logger: options.logger,
  });
  // Bearer authentication, then the rate limit, on every route of the page's API but the two open ones.
  for (const path of ["/api/me", "/api/ask", "/api/upload", "/api/jobs/:jobId", "/api/documents", "/api/status"]) {
    for (const handler of authenticated.middleware) app.use(path, handler);
  }
  const title = `docqa (endpoint set ${options.set.toUpperCase()})`;

  app.get("/", (c) =>
    c.html(webUiPage(title, mount), 200, { "Content-Security-Policy": webUiContentSecurityPolicy, "Cache-Control": "no-cache" }),
  );
  app.get("/assets/:name", async (c) => {
    const asset = await readWebUiAsset(c.req.param("name"));
    return c.body(new Uint8Array(asset.bytes), 200, { "Content-Type": asset.type, "Cache-Control": "no-cache" });
  });

  app.get("/api/config", (c) =>
    c.json({
      set: options.set,
      title,
      version: packageJson.version,
      devTokens: mayMint,
      maxUploadBytes: service.config.ingestion.maxUploadBytes,
      fileFormats: [...supportedFormats],
      fileExtensions: supportedExtensions.map((extension) => `.${extension}`),
    } satisfies UiConfig),
  );

  app.post("/api/dev-token", async (c) => {
    if (!mayMint) {
      throw new DocqaError("not_found", "minting tokens is off: set WEB_UI_DEV_TOKENS=true and JWT_SECRET (never in production)", {
        component: "web-ui",
      });
    }
    const body = await parseJson(c, devTokenSchema);
    const token = await mintAccessToken(server.jwt, { email: body.email, orgId: body.orgId, roles: body.roles, groups: body.groups });
    options.logger?.info("development token minted", { component: "web-ui", org_id: body.orgId });
    return c.json({ token }, 200);
  });

  app.get("/api/me", (c) => {
    const { orgId, principal } = c.get("auth");
    return c.json({ email: principal.userName, orgId, roles: principal.roles, groups: principal.groups });
  });

  app.post("/api/ask", async (c) => {
    const body = await parseJson(c, askSchema);
    const { orgId, principal } = c.get("auth");
    const result = await service.predict({
      orgId,
      principal,
      query: body.question,
      threadId: body.threadId,
      requestId: c.req.header("X-Request-Id"),
      signal: c.req.raw.signal,
    });
    return c.json(uiAnswer(result), 200);
  });

  app.post("/api/upload", async (c) => {
    // Refuse before reading a byte when the ingestion queue is full; then stream the files to disk.
    service.checkIngestionCapacity();
    const received = await receiveUpload(c.req.raw, {
      directory: join(resolve(service.config.stores.dataDir), "uploads", `incoming-${randomUUID()}`),
      fileField: "files",
      fields: ["share"],
      limits: { maxFileBytes: service.config.ingestion.maxUploadBytes, maxFiles: server.limits.maxUploadFiles },
      checkFile: (name) => {
        formatFromName(name);
      },
      component: "web-ui",
    });
    try {
      if (received.files.length === 0)
        throw new DocqaError("invalid_request", "choose at least one file (form field files)", { component: "web-ui" });
      const { orgId, principal } = c.get("auth");
      const shared = received.fields.share === "organisation";
      const metadata = { source: "web-ui", ...(shared ? { acl: "|user:_all_|" } : {}) };
      const job = await service.startIngestion({
        orgId,
        principal,
        // Each user's uploads have their own ids (`<user>/<file name>`); the file name is shown.
        files: uploadedFileSources(received.files, principal, metadata),
        uploader: principal.userName,
        metadata,
        uploadDirectory: received.directory,
        requestId: c.req.header("X-Request-Id"),
      });
      return c.json(job, 202);
    } catch (error) {
      await rm(received.directory, { recursive: true, force: true });
      throw error;
    }
  });

  app.get("/api/jobs/:jobId", async (c) => {
    const { orgId, principal } = c.get("auth");
    const jobId = c.req.param("jobId") ?? "";
    const job = await service.getIngestionJob({ orgId, principal }, jobId);
    if (!job) throw new DocqaError("not_found", `no ingestion job ${jobId} in this organisation`, { component: "web-ui" });
    return c.json(job, 200);
  });

  app.get("/api/documents", async (c) => {
    const { orgId, principal } = c.get("auth");
    const query = (c.req.query("q") ?? "").slice(0, 500);
    const cursor = c.req.query("cursor") || undefined;
    const page = await listDocuments({ orgId, principal, query, cursor, signal: c.req.raw.signal });
    const list: UiDocumentList = { ...page, listing: query.trim() === "" ? "all" : "search" };
    return c.json(list, 200);
  });

  app.get("/api/status", async (c) => {
    const { orgId } = c.get("auth");
    const [health, statistics] = await Promise.all([service.health(), service.statistics({ orgId })]);
    return c.json({ set: options.set, version: packageJson.version, health, statistics }, 200);
  });

  return app as unknown as Hono<{ Variables: AuthVariables }>;
}
