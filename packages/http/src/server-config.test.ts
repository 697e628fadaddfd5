import { DocqaError } from "@docqa/core";
import { describe, expect, it } from "vitest";
import { loadServerConfig, resolveServerConfig } from "./server-config.js";

describe("server settings", () => {
  it("default to the spec's values and read the environment", () => {
    expect(loadServerConfig({})).toEqual({
      jwt: { algorithm: "HS256", issuer: "oauth-app" },
      trustUserInfo: false,
      host: "127.0.0.1",
      port: 8002,
      portB: 8000,
      rateLimits: { perMinute: 100, perHour: 1000, setA: false },
      enableTestPredict: false,
      testPredictOrgId: "development",
      metrics: "off",
      webUi: true,
      webUiDevTokens: false,
      limits: { maxRequestBytes: 16 * 1024 * 1024, maxUploadRequestBytes: 256 * 1024 * 1024, maxUploadFiles: 100 },
    });
    const set = loadServerConfig({
      JWT_SECRET: "s",
      JWT_ALGORITHM: "HS512",
      JWT_ISSUER: "my-idp",
      PORT: "0",
      RATE_LIMIT_SET_A: "yes",
      MAX_REQUEST_BYTES: "2048",
      MAX_UPLOAD_REQUEST_BYTES: "4096",
      MAX_UPLOAD_FILES: "3",
    });
    expect([set.jwt, set.port, set.rateLimits.setA, set.limits]).toEqual([
      { secret: "s", algorithm: "HS512", issuer: "my-idp" },
      0,
      true,
      { maxRequestBytes: 2048, maxUploadRequestBytes: 4096, maxUploadFiles: 3 },
    ]);
    const operations = loadServerConfig({ METRICS: "token", METRICS_TOKEN: "t".repeat(16), WEB_UI: "false", WEB_UI_DEV_TOKENS: "true" });
    expect([operations.metrics, operations.metricsToken, operations.webUi, operations.webUiDevTokens]).toEqual([
      "token",
      "t".repeat(16),
      false,
      true,
    ]);
    expect(() => loadServerConfig({ METRICS: "yes" })).toThrow(/METRICS="yes"/);
  });

  it("name the variable of an invalid value", () => {
    const attempt = () => loadServerConfig({ JWT_ALGORITHM: "RS256", PORT_B: "-1" });
    expect(attempt).toThrow(DocqaError);
    expect(attempt).toThrow(/JWT_ALGORITHM="RS256".*PORT_B="-1"/);
  });

  it("refuse /testpredict in production, and name the variable", () => {
    expect(() => loadServerConfig({ ENABLE_TESTPREDICT: "true", NODE_ENV: "production" })).toThrow(
      "ENABLE_TESTPREDICT=true is refused when NODE_ENV=production: /testpredict answers without a token",
    );
    expect(() => resolveServerConfig({ enableTestPredict: true, nodeEnv: "Production" })).toThrow(DocqaError);
    expect(loadServerConfig({ ENABLE_TESTPREDICT: "true", NODE_ENV: "development", TESTPREDICT_ORG_ID: "dev-org" })).toMatchObject({
      enableTestPredict: true,
      nodeEnv: "development",
      testPredictOrgId: "dev-org",
    });
    expect(loadServerConfig({ NODE_ENV: "production" }).enableTestPredict).toBe(false);
  });

  it("resolve from code with nested overrides", () => {
    const server = resolveServerConfig({ jwt: { secret: "change-me" }, rateLimits: { perMinute: 5 } });
    expect([server.jwt.secret, server.jwt.issuer, server.rateLimits]).toEqual([
      "change-me",
      "oauth-app",
      { perMinute: 5, perHour: 1000, setA: false },
    ]);
  });
});
