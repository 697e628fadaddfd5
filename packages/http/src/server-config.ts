/**
 * The settings of docqa's HTTP servers, read like the service's (`loadSettings` over one zod
 * schema whose settings name their environment variables): access tokens, trusting
 * `user_info`, where the servers listen, per-user rate limits, the development route
 * `/testpredict` (its organisation, and the refusal to serve it in production), who may read
 * `/metrics`, and the web page `/ui`. They belong to the adapters, not to `@docqa/core`'s
 * `DocqaConfig`.
 */
import {
  type DeepPartial,
  type EnvironmentVariables,
  flag,
  integer,
  jwtSettingsSchema,
  loadSettings,
  parseSettings,
  setting,
} from "@docqa/core";
import { z } from "zod";

/** Schema of the server settings. */
export const serverConfigSchema = z
  .object({
    /** `JWT_SECRET`, `JWT_ALGORITHM` (`HS256`), `JWT_ISSUER` (`oauth-app`). The secret has no default. */
    jwt: jwtSettingsSchema.prefault({}),
    /**
     * `TRUST_USER_INFO`, default false. When false, `user_info.user_name` (and `/upsert`'s
     * `user_email`) must equal the token's `email` claim, case-insensitively, else 403.
     */
    trustUserInfo: setting("TRUST_USER_INFO", flag(false)),
    /** `HOST`, default `127.0.0.1`: the address both sets listen on. */
    host: setting("HOST", z.string().default("127.0.0.1")),
    /** `PORT`, default 8002: port of set A. */
    port: setting("PORT", integer(8002, 0)),
    /** `PORT_B`, default 8000: port of set B. */
    portB: setting("PORT_B", integer(8000, 0)),
    /**
     * Per-user request budgets (spec, set B: 100 per minute and 1,000 per hour):
     * `RATE_LIMIT_PER_MINUTE` (100) and `RATE_LIMIT_PER_HOUR` (1000); `RATE_LIMIT_SET_A`, default
     * false, applies them to set A's authenticated routes too.
     */
    rateLimits: z
      .object({
        perMinute: setting("RATE_LIMIT_PER_MINUTE", integer(100, 0)),
        perHour: setting("RATE_LIMIT_PER_HOUR", integer(1000, 0)),
        setA: setting("RATE_LIMIT_SET_A", flag(false)),
      })
      .prefault({}),
    /**
     * `ENABLE_TESTPREDICT`, default false: serve the unauthenticated development route
     * `/testpredict`. Refused when `NODE_ENV` is `production`.
     */
    enableTestPredict: setting("ENABLE_TESTPREDICT", flag(false)),
    /**
     * `TESTPREDICT_ORG_ID`, default `development`: the one organisation `/testpredict` answers
     * from; a body naming another is refused (403 `forbidden`).
     */
    testPredictOrgId: setting("TESTPREDICT_ORG_ID", z.string().min(1).max(128).default("development")),
    /**
     * `METRICS`, default `off`: Prometheus metrics at `/metrics` on both sets (`docqa serve`).
     * `off`: not served (404); `open`: no authentication (for a scraper on a private network);
     * `token`: `Authorization: Bearer <METRICS_TOKEN>` required (401 otherwise).
     */
    metrics: setting("METRICS", z.enum(["off", "open", "token"]).default("off")),
    /** `METRICS_TOKEN`: the bearer token `/metrics` requires when `METRICS=token` (at least 16 characters); never logged. */
    metricsToken: setting("METRICS_TOKEN", z.string().optional()),
    /** `WEB_UI`, default true: serve the web page at `/ui` on both sets (`docqa serve`). */
    webUi: setting("WEB_UI", flag(true)),
    /**
     * `WEB_UI_DEV_TOKENS`, default false: the web page's sign-in may mint an access token for any
     * e-mail, organisation, roles and groups typed in, signed with `JWT_SECRET`. Development only:
     * refused when `NODE_ENV=production`.
     */
    webUiDevTokens: setting("WEB_UI_DEV_TOKENS", flag(false)),
    /** `NODE_ENV`: with `production`, `ENABLE_TESTPREDICT=true` is a configuration error. */
    nodeEnv: setting("NODE_ENV", z.string().optional()),
    /**
     * Request size limits, checked while the body arrives (a `Content-Length` above the limit is
     * refused before reading):
     * - `MAX_REQUEST_BYTES`, default 16777216 (16 MiB): a JSON request body (`payload_too_large`, 413);
     * - `MAX_UPLOAD_REQUEST_BYTES`, default 268435456 (256 MiB): a whole multipart upload
     *   (`/api/ingest`), streamed to disk (`payload_too_large`, 413); each file is also limited by
     *   `MAX_UPLOAD_BYTES` (`file_too_large`, 413);
     * - `MAX_UPLOAD_FILES`, default 100: files in one upload (`too_many_files`, 413).
     */
    limits: z
      .object({
        maxRequestBytes: setting("MAX_REQUEST_BYTES", integer(16 * 1024 * 1024, 1024)),
        maxUploadRequestBytes: setting("MAX_UPLOAD_REQUEST_BYTES", integer(256 * 1024 * 1024, 1024)),
        maxUploadFiles: setting("MAX_UPLOAD_FILES", integer(100, 1)),
      })
      .prefault({}),
  })
  .superRefine((config, context) => {
    if (config.enableTestPredict && config.nodeEnv?.trim().toLowerCase() === "production") {
      context.addIssue({
        code: "custom",
        path: ["enableTestPredict"],
        message: "ENABLE_TESTPREDICT=true is refused when NODE_ENV=production: /testpredict answers without a token",
      });
    }
  });

/** The server settings. Build them with {@link loadServerConfig} or {@link resolveServerConfig}. */
export type ServerConfig = z.output<typeof serverConfigSchema>;

/**
 * Reads the server settings from environment variables (an empty value counts as unset).
 *
 * @param environment - default `process.env`.
 * @throws {DocqaError} `config_invalid` naming each offending variable.
 */
export function loadServerConfig(environment: EnvironmentVariables = process.env): ServerConfig {
  return loadSettings(serverConfigSchema, environment);
}

/**
 * The server settings from code: the defaults with `overrides` applied.
 *
 * @throws {DocqaError} `config_invalid` for an invalid value.
 * @example
 * ```ts
 * predictRoutes(service, { server: resolveServerConfig({ jwt: { secret: "change-me" } }) });
 * ```
 */
export function resolveServerConfig(overrides: DeepPartial<ServerConfig> = {}): ServerConfig {
  return parseSettings(serverConfigSchema, overrides);
}
