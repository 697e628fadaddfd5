/**
 * Escaping of caller-supplied values (organisation ids, user names, thread and job ids) inside
 * Redis key names, so that keys of different organisations or users can never be equal.
 */

/** Characters kept as they are; every other UTF-16 code unit becomes `%` and four hex digits. */
const plain = /^[A-Za-z0-9._@+-]$/;

/**
 * Escapes `value` for use as one part of a `:`-separated Redis key. The result never contains
 * `:`, `*`, `?`, `[`, `{` or whitespace, and the mapping is injective: ASCII letters, digits and
 * `. _ @ + -` are kept, and every other UTF-16 code unit (lone surrogates included) becomes `%`
 * followed by its four lower-case hex digits. So `a:b` + `c` and `a` + `b:c` give different keys.
 *
 * @example
 * ```ts
 * escapeKeyPart("acme:eu"); // "acme%003aeu"
 * escapeKeyPart("ada@example.org"); // "ada@example.org"
 * ```
 */
export function escapeKeyPart(value: string): string {
  let escaped = "";
  for (let index = 0; index < value.length; index += 1) {
    const character = value.charAt(index);
    escaped += plain.test(character) ? character : `%${value.charCodeAt(index).toString(16).padStart(4, "0")}`;
  }
  return escaped;
}
