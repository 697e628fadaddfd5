/**
 * Mints development access tokens with the spec's claims. Production tokens come from your
 * identity provider; this is for `docqa token`, tests and examples.
 */
import { randomUUID } from "node:crypto";
import { SignJWT } from "jose";
import { DocqaError } from "../errors/docqa-error.js";
import type { JwtSettings } from "./jwt-settings.js";

/** What to put in a minted token. */
export interface MintAccessTokenOptions {
  /** `email` claim. */
  email: string;
  /** `org_id` claim. */
  orgId: string;
  /** `role` claim; default `user`. */
  role?: string;
  /** docqa extension claim `roles`. */
  roles?: string[];
  /** docqa extension claim `groups`. */
  groups?: string[];
  /** Lifetime in seconds; default 3600. May be negative to mint an expired token for tests. */
  expiresInSeconds?: number;
  /** `type` claim; default `access`. Anything else is rejected by verification. */
  type?: string;
  /** `iss` claim; default the configured issuer. */
  issuer?: string;
  /** Issue time; default now. */
  now?: Date;
}

/**
 * Signs an access token with `JWT_SECRET`.
 *
 * @returns the compact JWT.
 * @throws {DocqaError} `auth_not_configured` when `jwt.secret` is unset.
 */
export async function mintAccessToken(jwt: JwtSettings, options: MintAccessTokenOptions): Promise<string> {
  if (!jwt.secret) {
    throw new DocqaError("auth_not_configured", "JWT_SECRET is not configured: set it to mint tokens", {
      component: "auth",
    });
  }
  const issuedAt = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const claims: Record<string, unknown> = {
    email: options.email,
    role: options.role ?? "user",
    org_id: options.orgId,
    type: options.type ?? "access",
  };
  if (options.roles) claims.roles = options.roles;
  if (options.groups) claims.groups = options.groups;
  return new SignJWT(claims)
    .setProtectedHeader({ alg: jwt.algorithm, typ: "JWT" })
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + (options.expiresInSeconds ?? 3600))
    .setIssuer(options.issuer ?? jwt.issuer)
    .setJti(randomUUID())
    .sign(new TextEncoder().encode(jwt.secret));
}
