/**
 * Parsing of the spec's pipe-delimited ACL strings ("ACL format"):
 * `|user:<email>|user:_all_|role:<role>|group:<group>|deny:<email>|`.
 */
import { normalizeAccessName } from "./principal.js";

/**
 * A parsed ACL. Every value is in `normalizeAccessName` form (NFKC, default-ignorable code points
 * removed, lower-cased), as principals are, so the spec's case-insensitive match also holds for
 * names that differ only in invisible or compatibility characters.
 */
export interface AccessList {
  /** `user:_all_` is present. */
  everyone: boolean;
  /** Users granted by `user:<email>`. */
  users: ReadonlySet<string>;
  /** Roles granted by `role:<role>`. */
  roles: ReadonlySet<string>;
  /** Groups granted by `group:<group>`. */
  groups: ReadonlySet<string>;
  /** Users blocked by `deny:<email>`. */
  denied: ReadonlySet<string>;
}

/** The `user:` value that grants everyone. */
export const everyoneEntry = "_all_";

/**
 * The form in which an ACL string is stored: the whole string in `normalizeAccessName` form, so
 * `parseAccessList` of it and of the original agree and its entries compare as principals do.
 * Applied once at ingestion; reading normalises again (stored ACLs written before docqa
 * normalised them are compared safely too).
 *
 * @example
 * ```ts
 * normalizeAccessList("|user:Ann@X.org|deny:ｂｏｂ\u200B@x.org|"); // "|user:ann@x.org|deny:bob@x.org|"
 * ```
 */
export function normalizeAccessList(acl: string): string {
  return normalizeAccessName(acl);
}

/**
 * Parses an ACL string. Entries are separated by `|`; surrounding pipes and whitespace are
 * optional; entries of an unknown kind and empty entries are ignored. `undefined`, `null` or an
 * empty string yield an empty ACL (rule 7: only the owner may read). The string is normalised
 * first ({@link normalizeAccessList}), whether or not it was stored normalised.
 *
 * @example
 * ```ts
 * parseAccessList("|user:Ann@x.org|role:hr|deny:bob@x.org|").users.has("ann@x.org"); // true
 * ```
 */
export function parseAccessList(acl: string | null | undefined): AccessList {
  const users = new Set<string>();
  const roles = new Set<string>();
  const groups = new Set<string>();
  const denied = new Set<string>();
  let everyone = false;
  for (const rawEntry of normalizeAccessList(acl ?? "").split("|")) {
    const entry = rawEntry.trim();
    const separator = entry.indexOf(":");
    if (separator <= 0) continue;
    const kind = entry.slice(0, separator).trim();
    const value = entry.slice(separator + 1).trim();
    if (value === "") continue;
    switch (kind) {
      case "user":
        if (value === everyoneEntry) everyone = true;
        else users.add(value);
        break;
      case "role":
        roles.add(value);
        break;
      case "group":
        groups.add(value);
        break;
      case "deny":
        denied.add(value);
        break;
    }
  }
  return { everyone, users, roles, groups, denied };
}

/** Formats an ACL back to the spec's `|kind:value|...|` form, in a canonical order. */
export function formatAccessList(accessList: AccessList): string {
  const entries = [
    ...(accessList.everyone ? [`user:${everyoneEntry}`] : []),
    ...[...accessList.users].sort().map((value) => `user:${value}`),
    ...[...accessList.roles].sort().map((value) => `role:${value}`),
    ...[...accessList.groups].sort().map((value) => `group:${value}`),
    ...[...accessList.denied].sort().map((value) => `deny:${value}`),
  ];
  return entries.length === 0 ? "" : `|${entries.join("|")}|`;
}
