/**
 * The access-token settings (spec "Authentication" 2): `JWT_SECRET` (no default), `JWT_ALGORITHM`
 * (default `HS256`) and `JWT_ISSUER` (default `oauth-app`). Read by the HTTP adapters' server
 * configuration and by `docqa token`; the functions of this folder take them as an argument.
 */
import { z } from "zod";
import { setting } from "../config/config-schema.js";

/** Schema of the access-token settings. */
export const jwtSettingsSchema = z.object({
  /** `JWT_SECRET`: HMAC secret of access tokens; no default (authenticated routes answer 503 without it). */
  secret: setting("JWT_SECRET", z.string().optional()),
  /** `JWT_ALGORITHM`, default `HS256`. */
  algorithm: setting("JWT_ALGORITHM", z.enum(["HS256", "HS384", "HS512"]).default("HS256")),
  /** `JWT_ISSUER`, default `oauth-app`: the required `iss`. */
  issuer: setting("JWT_ISSUER", z.string().default("oauth-app")),
});

/** Access-token settings: secret, algorithm, issuer. */
export type JwtSettings = z.output<typeof jwtSettingsSchema>;
