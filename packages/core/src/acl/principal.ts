/**
 * The principal a request acts for: the user and the roles and groups that ACL rules 4 to 6
 * match against.
 */

/** A user as seen by access control. All names are compared lower-cased. */
export interface Principal {
  /** The user's e-mail (`user_info.user_name`, or the token's `email`). */
  userName: string;
  /** Display name, echoed only; not used for access decisions. */
  realName?: string | undefined;
  /** Roles of the user (the token's `role` claim plus its optional `roles`). */
  roles: readonly string[];
  /** Groups of the user (the token's optional `groups` claim, or a principal resolver). */
  groups: readonly string[];
}

/** Returns the principal with user name, roles and groups trimmed, lower-cased and deduplicated. */
export function normalizePrincipal(principal: Principal): Principal {
  const clean = (values: readonly string[]) => [
    ...new Set(values.map((value) => value.trim().toLowerCase()).filter((value) => value !== "")),
  ];
  return {
    userName: principal.userName.trim().toLowerCase(),
    realName: principal.realName,
    roles: clean(principal.roles),
    groups: clean(principal.groups),
  };
}
