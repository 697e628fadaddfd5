import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { DocqaError, type DocqaErrorCode } from "../errors/docqa-error.js";
import type { JwtSettings } from "./jwt-settings.js";
import { mintAccessToken } from "./mint-access-token.js";
import { clockToleranceSeconds, verifyAccessToken } from "./verify-access-token.js";

const secret = "test-secret-of-at-least-thirty-two-bytes!";
const jwt: JwtSettings = { secret, algorithm: "HS256", issuer: "oauth-app" };
/** A fixed clock, so no test depends on the time it runs. */
const now = new Date("2030-01-15T12:00:00Z");
const nowSeconds = Math.floor(now.getTime() / 1000);
const key = new TextEncoder().encode(secret);

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

/** Signs arbitrary claims by hand with jose. */
function signClaims(claims: Record<string, unknown>, algorithm = "HS256", signingKey: Uint8Array = key): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: algorithm, typ: "JWT" }).sign(signingKey);
}

const validClaims = {
  email: "ann@x.org",
  org_id: "0b0f5d4e-8d3c-4c1a-9d7e-1a2b3c4d5e6f",
  role: "user",
  type: "access",
  iss: "oauth-app",
  iat: nowSeconds,
  exp: nowSeconds + 3600,
};

/** Awaits `promise`, expecting a DocqaError, and returns its code and client-facing message. */
async function rejection(promise: Promise<unknown>): Promise<{ code: DocqaErrorCode; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (DocqaError.isInstance(error)) return { code: error.code, message: error.publicMessage };
    throw error;
  }
  throw new Error("expected a DocqaError, but the promise resolved");
}

const invalid = (reason: string) => ({ code: "invalid_token", message: `the access token is invalid (${reason})` });
const invalidClaims = (fields: string) => ({ code: "invalid_token", message: `the access token's claims are invalid (${fields})` });

describe("verifyAccessToken", () => {
  it("returns the claims of a valid minted token", async () => {
    const token = await mintAccessToken(jwt, {
      email: "ann@x.org",
      orgId: "org-1",
      role: "admin",
      roles: ["hr"],
      groups: ["eng"],
      now,
    });
    const claims = await verifyAccessToken(token, jwt, now);
    expect(claims).toEqual({
      email: "ann@x.org",
      role: "admin",
      org_id: "org-1",
      type: "access",
      roles: ["hr"],
      groups: ["eng"],
      iat: nowSeconds,
      exp: nowSeconds + 3600,
      iss: "oauth-app",
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
  });

  it("returns the claims of a valid hand-made token", async () => {
    const claims = await verifyAccessToken(await signClaims(validClaims), jwt, now);
    expect(claims).toEqual(validClaims);
  });

  it("defaults the minted role to user and omits roles and groups", async () => {
    const claims = await verifyAccessToken(await mintAccessToken(jwt, { email: "ann@x.org", orgId: "org-1", now }), jwt, now);
    expect(claims.role).toBe("user");
    expect(claims.roles).toBeUndefined();
    expect(claims.groups).toBeUndefined();
  });

  it("verifies with the configured algorithm when it is not HS256", async () => {
    const hs512 = { ...jwt, algorithm: "HS512" as const };
    const token = await mintAccessToken(hs512, { email: "ann@x.org", orgId: "org-1", now });
    expect((await verifyAccessToken(token, hs512, now)).email).toBe("ann@x.org");
  });

  it.each([
    ["undefined", undefined],
    ["empty", ""],
  ])("throws auth_not_configured when the secret is %s", async (_label, missing) => {
    const token = await signClaims(validClaims);
    const promise = verifyAccessToken(token, { ...jwt, secret: missing }, now);
    expect(await rejection(promise)).toEqual({
      code: "auth_not_configured",
      message: "JWT_SECRET is not configured: set it to enable authenticated endpoints",
    });
  });

  it("mintAccessToken also throws auth_not_configured without a secret", async () => {
    expect(await rejection(mintAccessToken({ ...jwt, secret: undefined }, { email: "a@x.org", orgId: "o" }))).toEqual({
      code: "auth_not_configured",
      message: "JWT_SECRET is not configured: set it to mint tokens",
    });
  });

  it("rejects a token signed with another secret as invalid_token", async () => {
    const token = await mintAccessToken(
      { ...jwt, secret: "another-secret-of-at-least-thirty-two-bytes" },
      {
        email: "ann@x.org",
        orgId: "org-1",
        now,
      },
    );
    expect(await rejection(verifyAccessToken(token, jwt, now))).toEqual(invalid("signature verification failed"));
  });

  it("rejects a token whose payload was altered after signing as invalid_token", async () => {
    const [header, , signature] = (await signClaims(validClaims)).split(".");
    const forged = `${header}.${base64url({ ...validClaims, email: "boss@x.org" })}.${signature}`;
    expect(await rejection(verifyAccessToken(forged, jwt, now))).toEqual(invalid("signature verification failed"));
  });

  it("rejects an expired token as token_expired", async () => {
    const token = await mintAccessToken(jwt, { email: "ann@x.org", orgId: "org-1", expiresInSeconds: -60, now });
    expect(await rejection(verifyAccessToken(token, jwt, now))).toEqual({ code: "token_expired", message: "the access token has expired" });
  });

  it("rejects a token once the clock passes its exp", async () => {
    const token = await mintAccessToken(jwt, { email: "ann@x.org", orgId: "org-1", expiresInSeconds: 600, now });
    expect((await verifyAccessToken(token, jwt, now)).email).toBe("ann@x.org");
    const later = new Date(now.getTime() + 3600 * 1000);
    expect((await rejection(verifyAccessToken(token, jwt, later))).code).toBe("token_expired");
  });

  it("rejects a token issued ten years in the future as invalid_token, naming iat", async () => {
    const token = await signClaims({ ...validClaims, iat: nowSeconds + 10 * 365 * 86_400, exp: nowSeconds + 11 * 365 * 86_400 });
    const { code, message } = await rejection(verifyAccessToken(token, jwt, now));
    expect(code).toBe("invalid_token");
    expect(message).toContain('"iat" is in the future');
  });

  it("accepts an iat up to the clock tolerance ahead, refuses one second more", async () => {
    const within = await signClaims({ ...validClaims, iat: nowSeconds + clockToleranceSeconds });
    expect((await verifyAccessToken(within, jwt, now)).iat).toBe(nowSeconds + clockToleranceSeconds);
    const beyond = await signClaims({ ...validClaims, iat: nowSeconds + clockToleranceSeconds + 1 });
    expect((await rejection(verifyAccessToken(beyond, jwt, now))).code).toBe("invalid_token");
  });

  it("accepts a token without iat (the spec does not require it)", async () => {
    const { iat: _, ...withoutIat } = validClaims;
    expect((await verifyAccessToken(await signClaims(withoutIat), jwt, now)).email).toBe("ann@x.org");
  });

  it("rejects a token from another issuer as invalid_token", async () => {
    const token = await mintAccessToken(jwt, { email: "ann@x.org", orgId: "org-1", issuer: "someone-else", now });
    expect(await rejection(verifyAccessToken(token, jwt, now))).toEqual(invalid('claim "iss" check_failed'));
  });

  it("rejects a token without an issuer as invalid_token", async () => {
    const { iss: _issuer, ...claims } = validClaims;
    expect(await rejection(verifyAccessToken(await signClaims(claims), jwt, now))).toEqual(invalid('claim "iss" missing'));
  });

  it('rejects a token of type "refresh" as invalid_token', async () => {
    const token = await mintAccessToken(jwt, { email: "ann@x.org", orgId: "org-1", type: "refresh", now });
    expect(await rejection(verifyAccessToken(token, jwt, now))).toEqual(invalidClaims("type"));
  });

  it("rejects a token without a type claim as invalid_token", async () => {
    const { type: _type, ...claims } = validClaims;
    expect(await rejection(verifyAccessToken(await signClaims(claims), jwt, now))).toEqual(invalidClaims("type"));
  });

  it('rejects an unsigned "alg: none" token as invalid_token', async () => {
    const token = `${base64url({ alg: "none", typ: "JWT" })}.${base64url(validClaims)}.`;
    expect(await rejection(verifyAccessToken(token, jwt, now))).toEqual(invalid("algorithm not allowed"));
  });

  it("rejects a token signed with HS512 when HS256 is configured as invalid_token", async () => {
    const token = await signClaims(validClaims, "HS512");
    expect(await rejection(verifyAccessToken(token, jwt, now))).toEqual(invalid("algorithm not allowed"));
  });

  it("rejects a token without email as invalid_token, naming the claim", async () => {
    const { email: _email, ...claims } = validClaims;
    expect(await rejection(verifyAccessToken(await signClaims(claims), jwt, now))).toEqual(invalidClaims("email"));
  });

  it("rejects a token with an empty email as invalid_token", async () => {
    expect(await rejection(verifyAccessToken(await signClaims({ ...validClaims, email: "" }), jwt, now))).toEqual(invalidClaims("email"));
  });

  it("rejects a token without org_id as invalid_token, naming the claim", async () => {
    const { org_id: _orgId, ...claims } = validClaims;
    expect(await rejection(verifyAccessToken(await signClaims(claims), jwt, now))).toEqual(invalidClaims("org_id"));
  });

  it("rejects a token without exp as invalid_token", async () => {
    const { exp: _exp, ...claims } = validClaims;
    expect(await rejection(verifyAccessToken(await signClaims(claims), jwt, now))).toEqual(invalid('claim "exp" missing'));
  });

  it.each(["", "not-a-jwt", "a.b.c"])("rejects the malformed token %j as invalid_token", async (token) => {
    expect(await rejection(verifyAccessToken(token, jwt, now))).toEqual(invalid("malformed token"));
  });

  it("keeps the underlying error as the cause", async () => {
    const token = await signClaims(validClaims, "HS512");
    const error = await verifyAccessToken(token, jwt, now).catch((caught: unknown) => caught);
    expect(DocqaError.isInstance(error)).toBe(true);
    expect((error as DocqaError).component).toBe("auth");
    expect((error as DocqaError).cause).toBeInstanceOf(Error);
  });
});
