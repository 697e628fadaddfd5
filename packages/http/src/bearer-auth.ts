/**
 * Bearer-JWT authentication middleware (spec "Authentication"): 503 when `JWT_SECRET` is unset,
 * 401 for a missing, malformed, invalid or expired token; on success the verified claims and
 * the principal (roles and groups from the token, or from a `PrincipalResolver`) are available
 * as `c.var.auth`.
 */
import {
  type AccessTokenClaims,
  DocqaError,
  type JwtSettings,
  normalizePrincipal,
  type Principal,
  type PrincipalResolver,
  principalFromClaims,
  verifyAccessToken,
} from "@docqa/core";
import { createMiddleware } from "hono/factory";

/** What a verified request carries. */
export interface AuthenticatedUser {
  claims: AccessTokenClaims;
  /** The organisation: the token's `org_id`. */
  orgId: string;
  /**
   * The token's user: `email`, and the roles and groups of the principal resolver (default
   * `principalFromClaims`: roles from `role` and `roles`, groups from `groups`), each normalised
   * once here (`normalizePrincipal`: NFKC, default-ignorable code points removed, lower-cased), so
   * ACL entries, stored in the same form, compare with them as the reader sees them.
   */
  principal: Principal;
}

/** Hono variables set by {@link bearerAuth}. */
export interface AuthVariables {
  auth: AuthenticatedUser;
}

/**
 * Middleware verifying `Authorization: Bearer <token>` with the access-token settings (`JwtSettings`), which are
 * read per request, so the secret may be provided after the app is built.
 *
 * @param resolvePrincipal - where roles and groups come from; default `principalFromClaims`.
 * @throws {DocqaError} `auth_not_configured`, `missing_token`, `invalid_token`, `token_expired`
 *   (mapped to 503 or 401 by the adapter's error handler); `store_unavailable` when the
 *   resolver fails.
 */
export function bearerAuth(settings: () => JwtSettings, resolvePrincipal: PrincipalResolver = principalFromClaims) {
  return createMiddleware<{ Variables: AuthVariables }>(async (c, next) => {
    const jwt = settings();
    if (!jwt.secret) {
      throw new DocqaError("auth_not_configured", "JWT_SECRET is not configured: set it to enable authenticated endpoints", {
        component: "auth",
      });
    }
    const header = c.req.header("Authorization");
    if (!header)
      throw new DocqaError("missing_token", "the Authorization header is missing; send 'Authorization: Bearer <token>'", {
        component: "auth",
      });
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) throw new DocqaError("missing_token", "the Authorization header must be 'Bearer <token>'", { component: "auth" });
    const claims = await verifyAccessToken(match[1] as string, jwt);
    let attributes: Awaited<ReturnType<PrincipalResolver>>;
    try {
      attributes = await resolvePrincipal(claims);
    } catch (error) {
      if (DocqaError.isInstance(error)) throw error;
      throw new DocqaError("store_unavailable", `resolving the roles and groups of the user failed: ${(error as Error).message}`, {
        component: "auth",
        cause: error,
      });
    }
    c.set("auth", {
      claims,
      orgId: claims.org_id,
      principal: normalizePrincipal({ userName: claims.email, roles: attributes.roles, groups: attributes.groups }),
    });
    await next();
  });
}
