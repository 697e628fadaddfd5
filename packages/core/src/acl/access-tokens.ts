/**
 * ACL pre-filtering in server engines. Each chunk stores two lists of plain tokens, and a search
 * asks for chunks whose grant list shares a token with the principal and whose deny list does not
 * hold the user. Tokens are values of array/keyword fields compared for equality by the engine,
 * never spliced into query text, so a name containing quotes or operators cannot change a query.
 *
 * The filter equals the spec's seven rules (see `evaluateAccess`):
 * `NOT denied ∋ user AND grants ∩ principalTokens ≠ ∅`, where the owner is a grant (rule 2), but
 * only after the deny check (rule 1) as the spec orders them; `everyone` is rule 3; users, roles
 * and groups are rules 4 to 6; no match is rule 7. The seven rules still run after retrieval as
 * the final word.
 */
import type { AccessList } from "./access-list.js";
import { parseAccessList } from "./access-list.js";
import { normalizeAccessName, type Principal } from "./principal.js";

/** The grant token every principal holds, present on chunks whose ACL has `user:_all_`. */
export const everyoneToken = "all";

/** The access fields a server engine stores with each chunk. */
export interface ChunkAccessTokens {
  /** Grant tokens: `all`, `user:<email>` (ACL users and the owner), `role:<r>`, `group:<g>`. */
  grants: string[];
  /** E-mails of `deny:` entries, in `normalizeAccessName` form. */
  denied: string[];
}

/**
 * The grant and deny tokens of a chunk with owner `ownerId` and ACL `acl`.
 *
 * @example
 * ```ts
 * chunkAccessTokens("ann@x.org", "|role:hr|deny:bob@x.org|");
 * // { grants: ["user:ann@x.org", "role:hr"], denied: ["bob@x.org"] }
 * ```
 */
export function chunkAccessTokens(ownerId: string, acl: string | AccessList): ChunkAccessTokens {
  const list = typeof acl === "string" ? parseAccessList(acl) : acl;
  const grants = new Set<string>();
  const owner = normalizeAccessName(ownerId);
  if (owner !== "") grants.add(`user:${owner}`);
  if (list.everyone) grants.add(everyoneToken);
  for (const user of list.users) grants.add(`user:${user}`);
  for (const role of list.roles) grants.add(`role:${role}`);
  for (const group of list.groups) grants.add(`group:${group}`);
  return { grants: [...grants], denied: [...list.denied] };
}

/**
 * The tokens a principal matches: `all`, `user:<email>` (when the user name is not empty),
 * `role:<r>` and `group:<g>` for each role and group, in `normalizeAccessName` form.
 */
export function principalAccessTokens(principal: Principal): string[] {
  const tokens = new Set<string>([everyoneToken]);
  const user = normalizeAccessName(principal.userName);
  if (user !== "") tokens.add(`user:${user}`);
  for (const role of principal.roles.map(normalizeAccessName)) if (role !== "") tokens.add(`role:${role}`);
  for (const group of principal.groups.map(normalizeAccessName)) if (group !== "") tokens.add(`group:${group}`);
  return [...tokens];
}

/** The user name a deny list is checked for: the principal's in `normalizeAccessName` form (`""`: no deny check). */
export function principalDenyToken(principal: Principal): string {
  return normalizeAccessName(principal.userName);
}
