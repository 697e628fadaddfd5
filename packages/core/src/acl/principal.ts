/**
 * The principal a request acts for: the user and the roles and groups that ACL rules 4 to 6
 * match against.
 */

/** A user as seen by access control. All names are compared in their {@link normalizeAccessName} form. */
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

/** Unicode's default-ignorable code points (UAX #44 `Default_Ignorable_Code_Point`): invisible in text, ignored in comparisons. */
const defaultIgnorable = /\p{Default_Ignorable_Code_Point}/gu;

/**
 * The form in which docqa compares and stores user names, roles, groups and ACL entries, so that
 * two spellings a reader cannot tell apart are one name (`deny:` cannot be bypassed by a name
 * that only looks different to a byte comparison):
 *
 * 1. Unicode compatibility normalisation NFKC (UAX #15): fullwidth `ｂｏｂ` becomes `bob`,
 *    ligatures and other compatibility characters become their plain letters;
 * 2. default-ignorable code points removed (UAX #44 `Default_Ignorable_Code_Point`: zero-width
 *    space U+200B, zero-width joiner U+200D, soft hyphen U+00AD, variation selectors, ...);
 * 3. case-folded with Unicode's default lower-case mapping (`String.prototype.toLowerCase`,
 *    locale-independent; full case folding would also equate `ß` with `ss`, which e-mail
 *    addresses do not), then NFKC again so the result is stable;
 * 4. surrounding white space trimmed.
 *
 * This is Unicode's `NFKC_Casefold` (UAX #44, `DerivedNormalizationProps.txt`) except for the
 * few characters whose full case folding differs from their lower case. Idempotent.
 *
 * @example
 * ```ts
 * normalizeAccessName(" Bob\u200B@Example.org "); // "bob@example.org"
 * normalizeAccessName("ｂｏｂ@example.org"); // "bob@example.org"
 * ```
 */
export function normalizeAccessName(value: string): string {
  return value.normalize("NFKC").replace(defaultIgnorable, "").toLowerCase().normalize("NFKC").trim();
}

/** Returns the principal with user name, roles and groups in {@link normalizeAccessName} form, without empty or repeated values. */
export function normalizePrincipal(principal: Principal): Principal {
  const clean = (values: readonly string[]) => [...new Set(values.map(normalizeAccessName).filter((value) => value !== ""))];
  return {
    userName: normalizeAccessName(principal.userName),
    realName: principal.realName,
    roles: clean(principal.roles),
    groups: clean(principal.groups),
  };
}
