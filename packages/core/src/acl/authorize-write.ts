/**
 * Who may write a document: docqa's write rules, decided by one pure function next to the
 * spec's seven read rules (`evaluate-access.ts`). The spec says who may read a document and
 * nothing about who may replace or delete it; these rules give what users of an enterprise
 * system expect and close OWASP API Security Top 10 (2023) API1 "Broken Object Level
 * Authorization" and API5 "Broken Function Level Authorization": a document belongs to its
 * owner, administrative roles manage every document, and ACL entries grant reading only.
 *
 * | # | Condition | Result |
 * |---|---|---|
 * | 1 | the principal has no user name and no administrative role | refused |
 * | 2 | the principal holds an administrative role (`ADMIN_ROLES`) | allowed |
 * | 3 | the document is stored and its owner is not the principal | refused |
 * | 4 | `owner_id` names somebody other than the principal | refused |
 * | 5 | otherwise (a new document, or the principal's own) | allowed |
 *
 * The rules apply to every entry point that writes (`upsert`, file ingestion, deletion, the
 * CLI), in the ingestion path, never in the HTTP routes.
 */
import { normalizeAccessName, type Principal } from "./principal.js";

/** The roles that manage every document of an organisation when `ADMIN_ROLES` is unset. */
export const defaultAdminRoles: readonly string[] = ["admin"];

/** The number (1 to 5) of the write rule that decided. */
export type WriteRule = 1 | 2 | 3 | 4 | 5;

/** What a write does to one document. */
export interface WriteAttempt {
  /** `upsert` writes a version (new, replacement, or access change); `delete` removes the document. */
  action: "upsert" | "delete";
  /** The stored document's owner (`owner_id`, `""` when it has none); undefined when nothing is stored under the id. */
  storedOwner?: string | undefined;
  /**
   * For `upsert`: the owner the request asks for (`metadata.owner_id`, or the uploader a caller
   * named); undefined when the request names none.
   */
  requestedOwner?: string | undefined;
}

/** Outcome of {@link authorizeWrite}. */
export interface WriteDecision {
  allowed: boolean;
  /** The deciding rule; see the module documentation. */
  rule: WriteRule;
  /**
   * For an allowed `upsert`: the owner to store, in `normalizeAccessName` form. The requested owner when given;
   * else the stored owner when the document exists and has one (an administrator's replacement
   * does not take the document over); else the principal. `""` for a refusal or a delete.
   */
  ownerId: string;
  /** Why, in words safe to show the caller (never the stored owner's name). */
  reason: string;
}

const clean = (value: string | undefined): string => normalizeAccessName(value ?? "");

/**
 * Whether `principal` holds one of `adminRoles` (compared in `normalizeAccessName` form).
 *
 * @param adminRoles - `ADMIN_ROLES`; default {@link defaultAdminRoles}.
 */
export function isAdministrator(principal: Principal, adminRoles: readonly string[] = defaultAdminRoles): boolean {
  const administrative = new Set(adminRoles.map(clean).filter((role) => role !== ""));
  return principal.roles.some((role) => administrative.has(clean(role)));
}

/**
 * Decides whether `principal` may perform `attempt` on one document; the first rule that applies
 * decides (table in the module documentation). Pure: the caller looks the stored owner up, and
 * refuses the whole request (nothing written) when any document is refused.
 *
 * @param adminRoles - `ADMIN_ROLES`; default {@link defaultAdminRoles}.
 * @example
 * ```ts
 * authorizeWrite({ userName: "bob@x.org", roles: [], groups: [] }, { action: "upsert", storedOwner: "ann@x.org" });
 * // { allowed: false, rule: 3, ownerId: "", reason: "only the document's owner or an administrator may replace it" }
 * ```
 */
export function authorizeWrite(
  principal: Principal,
  attempt: WriteAttempt,
  adminRoles: readonly string[] = defaultAdminRoles,
): WriteDecision {
  const user = clean(principal.userName);
  const admin = isAdministrator(principal, adminRoles);
  const stored = attempt.storedOwner === undefined ? undefined : clean(attempt.storedOwner);
  const requested = attempt.requestedOwner === undefined ? undefined : clean(attempt.requestedOwner);
  const refuse = (rule: WriteRule, reason: string): WriteDecision => ({ allowed: false, rule, ownerId: "", reason });
  const allow = (rule: WriteRule, ownerId: string, reason: string): WriteDecision => ({
    allowed: true,
    rule,
    ownerId: attempt.action === "delete" ? "" : ownerId,
    reason,
  });
  if (user === "" && !admin) return refuse(1, "writing needs a user name or an administrative role");
  if (admin) {
    return allow(2, requested ?? (stored !== undefined && stored !== "" ? stored : user), "administrators manage every document");
  }
  if (stored !== undefined && stored !== user) {
    return refuse(
      3,
      attempt.action === "delete"
        ? "only the document's owner or an administrator may delete it"
        : "only the document's owner or an administrator may replace it",
    );
  }
  if (attempt.action === "upsert" && requested !== undefined && requested !== user) {
    return refuse(4, "only an administrator may make somebody else the owner (owner_id)");
  }
  return allow(5, user, stored === undefined ? "a new document is owned by its uploader" : "the owner may change the document");
}
