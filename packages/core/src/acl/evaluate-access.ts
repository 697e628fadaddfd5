/**
 * The spec's seven document access rules ("Document access rules"), evaluated in order; the
 * first that applies decides. This is the final word on access, applied after retrieval even
 * when an index has already pre-filtered by principal.
 */
import { type AccessList, parseAccessList } from "./access-list.js";
import { normalizeAccessName, type Principal } from "./principal.js";

/** The number (1 to 7) of the spec rule that decided. */
export type AccessRule = 1 | 2 | 3 | 4 | 5 | 6 | 7;

/** Outcome of {@link evaluateAccess}. */
export interface AccessDecision {
  granted: boolean;
  /** The deciding rule: 1 deny, 2 owner, 3 everyone, 4 user, 5 role, 6 group, 7 nothing matched. */
  rule: AccessRule;
}

/** The access-relevant fields of a document or chunk. */
export interface AccessControlled {
  /** Owner's e-mail (`metadata.owner_id`); empty when the document has no owner. */
  ownerId: string;
  /** The raw ACL string, or an already parsed one. */
  acl: string | AccessList;
}

/**
 * Decides whether `principal` may read `document`. Both sides are compared in
 * `normalizeAccessName` form (NFKC, default-ignorable code points removed, lower-cased), so a
 * stored ACL or owner written before docqa normalised them still compares safely.
 *
 * | # | Condition | Result |
 * |---|---|---|
 * | 1 | ACL has `deny:<user>` | blocked |
 * | 2 | `owner_id` equals the user | granted |
 * | 3 | ACL has `user:_all_` | granted |
 * | 4 | ACL has `user:<user>` | granted |
 * | 5 | ACL has `role:<r>` and the user has role `r` | granted |
 * | 6 | ACL has `group:<g>` and the user is in group `g` | granted |
 * | 7 | otherwise | blocked (only the owner may read) |
 */
export function evaluateAccess(principal: Principal, document: AccessControlled): AccessDecision {
  const user = normalizeAccessName(principal.userName);
  const accessList = typeof document.acl === "string" ? parseAccessList(document.acl) : document.acl;
  if (user !== "" && accessList.denied.has(user)) return { granted: false, rule: 1 };
  if (user !== "" && normalizeAccessName(document.ownerId) === user) return { granted: true, rule: 2 };
  if (accessList.everyone) return { granted: true, rule: 3 };
  if (user !== "" && accessList.users.has(user)) return { granted: true, rule: 4 };
  if (principal.roles.some((role) => accessList.roles.has(normalizeAccessName(role)))) return { granted: true, rule: 5 };
  if (principal.groups.some((group) => accessList.groups.has(normalizeAccessName(group)))) return { granted: true, rule: 6 };
  return { granted: false, rule: 7 };
}

/** Shorthand for `evaluateAccess(principal, document).granted`. */
export function canRead(principal: Principal, document: AccessControlled): boolean {
  return evaluateAccess(principal, document).granted;
}
