/**
 * The claims of a docqa access token (spec "JWT claims (access token)"), with two optional
 * docqa extensions, `roles` and `groups`, that feed ACL rules 5 and 6.
 */
import { z } from "zod";

/** Schema of the verified claims. `exp` and `type` are checked during verification. */
export const accessTokenClaimsSchema = z.object({
  /** User e-mail; the principal name used in ACL checks. */
  email: z.string().min(1),
  /** The user's role (spec claim). */
  role: z.string().optional(),
  /** Organisation id (UUID in the spec; any non-empty string of at most 128 characters is accepted). */
  org_id: z.string().min(1).max(128),
  /** Must be `access`. */
  type: z.literal("access"),
  exp: z.number().int(),
  iat: z.number().int().optional(),
  iss: z.string().optional(),
  jti: z.string().optional(),
  /** docqa extension: further roles of the user. */
  roles: z.array(z.string()).optional(),
  /** docqa extension: groups the user belongs to. */
  groups: z.array(z.string()).optional(),
});

/** Verified claims of an access token. */
export type AccessTokenClaims = z.infer<typeof accessTokenClaimsSchema>;
