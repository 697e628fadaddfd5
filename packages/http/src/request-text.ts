/**
 * The schema of a question-like text field (`query`, `text`, `message`): what the service would
 * refuse is refused by the schema first, so the OpenAPI documents state it too. The service
 * normalises a question (NFKC, control characters and white space runs become one space,
 * trimmed; `normalizeQuery`) and refuses an empty result, so a text must hold at least one
 * character that is neither a control character nor white space; and it refuses one longer than
 * `MAX_QUERY_CHARS` (default 4,000).
 */
import { z } from "@hono/zod-openapi";

/**
 * Matches a text holding at least one character that survives normalisation: not a C0 control
 * character, DEL or JavaScript white space (`String.prototype.trim`'s set: TAB, LF, VT, FF, CR,
 * space, NBSP, U+1680, U+2000–U+200A, U+2028, U+2029, U+202F, U+205F, U+3000, U+FEFF). Written
 * as an explicit class, so every JSON Schema validator (ECMAScript and Python regular
 * expressions) reads it alike.
 */
export const meaningfulTextPattern = /[^\u0000-\u0020\u007f\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]/;

/** The default of `MAX_QUERY_CHARS`, the longest question in characters. */
export const defaultMaximumQueryCharacters = 4000;

/**
 * A question-like text: at least one character other than white space and control characters
 * ({@link meaningfulTextPattern}), at most {@link defaultMaximumQueryCharacters} characters.
 */
export function questionTextSchema(description: string, example: string) {
  return z
    .string()
    .min(1)
    .max(defaultMaximumQueryCharacters)
    .regex(meaningfulTextPattern, "must contain a character other than white space and control characters")
    .openapi({
      description: `${description} At most ${defaultMaximumQueryCharacters} characters (\`MAX_QUERY_CHARS\`), not only white space.`,
      example,
    });
}

/**
 * A documents listing's `cursor`: the base64url text `listDocuments` hands out (at least one
 * character; an empty or otherwise malformed cursor is refused, 400 `invalid_request`).
 */
export const documentCursorPattern = /^[A-Za-z0-9_-]+$/;
