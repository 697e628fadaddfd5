/**
 * Verifies a bearer access token exactly as the spec's "Authentication" section says:
 * signature with `JWT_SECRET` and `JWT_ALGORITHM`, `exp` not passed, `iss` equal to
 * `JWT_ISSUER`, and `type` equal to `access`; besides, a token issued in the future (`iat` more
 * than {@link clockToleranceSeconds} ahead of this server's clock) is refused: no honest issuer
 * mints one, and a far-future `iat` defeats any check of a token's age.
 */
import { errors as joseErrors, jwtVerify } from "jose";
import { DocqaError } from "../errors/docqa-error.js";
import { type AccessTokenClaims, accessTokenClaimsSchema } from "./access-token-claims.js";
import type { JwtSettings } from "./jwt-settings.js";

/**
 * Clock tolerance for `exp`, `nbf` and `iat`, in seconds: how far the issuer's clock may be ahead
 * of this server's (hosts synchronised by NTP differ by well under a second; RFC 7519 section 4.1
 * leaves the leeway to the implementation, "usually no more than a few minutes").
 */
export const clockToleranceSeconds = 5;

/**
 * Verifies `token` and returns its claims.
 *
 * Only the configured HMAC algorithm is accepted, so `alg: none` and algorithm-confusion
 * tokens are rejected.
 *
 * @param token - the compact JWT (without the `Bearer ` prefix).
 * @param jwt - the access-token settings (`JwtSettings`): secret, algorithm, issuer.
 * @param now - current time, for tests; default the system clock.
 * @throws {DocqaError} `auth_not_configured` when the secret is unset; `token_expired` when
 *   `exp` has passed; `invalid_token` for any other failure (bad signature, wrong issuer,
 *   wrong `type`, missing claims, malformed token, `iat` in the future).
 */
export async function verifyAccessToken(token: string, jwt: JwtSettings, now: Date = new Date()): Promise<AccessTokenClaims> {
  if (!jwt.secret) {
    throw new DocqaError("auth_not_configured", "JWT_SECRET is not configured: set it to enable authenticated endpoints", {
      component: "auth",
    });
  }
  let payload: unknown;
  try {
    ({ payload } = await jwtVerify(token, new TextEncoder().encode(jwt.secret), {
      algorithms: [jwt.algorithm],
      issuer: jwt.issuer,
      requiredClaims: ["exp"],
      clockTolerance: clockToleranceSeconds,
      currentDate: now,
    }));
  } catch (error) {
    if (error instanceof joseErrors.JWTExpired) {
      throw new DocqaError("token_expired", "the access token has expired", { component: "auth", cause: error });
    }
    throw new DocqaError("invalid_token", `the access token is invalid (${describeJoseError(error)})`, {
      component: "auth",
      cause: error,
    });
  }
  const claims = accessTokenClaimsSchema.safeParse(payload);
  if (!claims.success) {
    const fields = claims.error.issues.map((issue) => issue.path.join(".") || "payload").join(", ");
    throw new DocqaError("invalid_token", `the access token's claims are invalid (${fields})`, {
      component: "auth",
      cause: claims.error,
    });
  }
  // jose checks a future `iat` only together with `maxTokenAge`, which would also make `iat`
  // required; the spec leaves `iat` optional, so the check is made here when it is present.
  const { iat } = claims.data;
  if (iat !== undefined && iat > Math.floor(now.getTime() / 1000) + clockToleranceSeconds) {
    throw new DocqaError("invalid_token", `the access token is invalid (claim "iat" is in the future, beyond ${clockToleranceSeconds} s)`, {
      component: "auth",
    });
  }
  return claims.data;
}

function describeJoseError(error: unknown): string {
  if (error instanceof joseErrors.JWTClaimValidationFailed) return `claim "${error.claim}" ${error.reason}`;
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return "signature verification failed";
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return "algorithm not allowed";
  if (error instanceof joseErrors.JWSInvalid || error instanceof joseErrors.JWTInvalid) return "malformed token";
  return "verification failed";
}
