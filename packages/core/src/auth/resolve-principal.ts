/**
 * Where a principal's roles and groups come from. By default from the verified access token:
 * roles from the spec's `role` claim plus docqa's optional `roles` array, groups from docqa's
 * optional `groups` array ({@link principalFromClaims}). Deployments whose identity provider does
 * not put groups in tokens plug in a {@link PrincipalResolver} (a directory lookup: LDAP, SCIM,
 * Microsoft Graph, a database), usually wrapped in {@link createCachedPrincipalResolver} so that a
 * user's requests do not each ask the directory.
 */
import { LRUCache } from "lru-cache";
import { normalizeAccessName } from "../acl/principal.js";
import { DocqaError } from "../errors/docqa-error.js";
import type { AccessTokenClaims } from "./access-token-claims.js";

/** The roles and groups ACL rules 5 and 6 (and `ADMIN_ROLES`) match against. */
export interface PrincipalAttributes {
  roles: string[];
  groups: string[];
}

/**
 * Resolves a verified token's claims to the principal's roles and groups. Its result replaces the
 * token's; call {@link principalFromClaims} inside to keep them as well. Throwing (or rejecting)
 * fails the request with 503 `store_unavailable`.
 *
 * @example
 * ```ts
 * const fromDirectory: PrincipalResolver = async (claims) => {
 *   const groups = await directory.groupsOf(claims.org_id, claims.email);
 *   return { roles: principalFromClaims(claims).roles, groups };
 * };
 * predictRoutes(service, { resolvePrincipal: createCachedPrincipalResolver({ resolve: fromDirectory }) });
 * ```
 */
export type PrincipalResolver = (claims: AccessTokenClaims) => PrincipalAttributes | Promise<PrincipalAttributes>;

/**
 * The default resolver: roles from the `role` claim (spec) and the optional `roles` claim (an
 * array), groups from the optional `groups` claim (an array), in that order, without empty or
 * repeated values.
 */
export function principalFromClaims(claims: AccessTokenClaims): PrincipalAttributes {
  const unique = (values: readonly (string | undefined)[]) => [
    ...new Set(values.filter((value): value is string => typeof value === "string" && value.trim() !== "")),
  ];
  return { roles: unique([claims.role, ...(claims.roles ?? [])]), groups: unique(claims.groups ?? []) };
}

/** Settings of {@link createCachedPrincipalResolver}. */
export interface CachedPrincipalResolverSettings {
  /** The resolver to cache, for example a directory lookup. */
  resolve: PrincipalResolver;
  /** How long a result is kept, in milliseconds; default 300,000 (5 minutes). Group changes take effect within it. */
  ttlMs?: number | undefined;
  /** Most users kept (least recently used dropped first); default 10,000. */
  maxEntries?: number | undefined;
}

/** A cached resolver; {@link CachedPrincipalResolver.clear} forgets every result (after a directory change). */
export interface CachedPrincipalResolver extends PrincipalResolver {
  clear(): void;
}

/**
 * Caches a resolver's results per organisation and user (`org_id` and normalised `email`) in an
 * LRU cache with a time to live (`lru-cache`). Concurrent requests of one user share one lookup;
 * a failed lookup is not cached.
 *
 * @throws {DocqaError} from the returned resolver: `store_unavailable` when `resolve` fails.
 */
export function createCachedPrincipalResolver(settings: CachedPrincipalResolverSettings): CachedPrincipalResolver {
  const cache = new LRUCache<string, PrincipalAttributes, AccessTokenClaims>({
    max: settings.maxEntries ?? 10_000,
    ttl: settings.ttlMs ?? 300_000,
    fetchMethod: async (_key, _stale, { context }) => settings.resolve(context),
  });
  const resolver = async (claims: AccessTokenClaims): Promise<PrincipalAttributes> => {
    const key = `${claims.org_id}\u0000${normalizeAccessName(claims.email)}`;
    try {
      const found = await cache.fetch(key, { context: claims });
      if (!found) throw new Error("the resolver returned nothing");
      return { roles: [...found.roles], groups: [...found.groups] };
    } catch (error) {
      if (DocqaError.isInstance(error)) throw error;
      throw new DocqaError("store_unavailable", `resolving the roles and groups of the user failed: ${(error as Error).message}`, {
        component: "auth",
        cause: error,
      });
    }
  };
  return Object.assign(resolver, { clear: () => cache.clear() });
}
