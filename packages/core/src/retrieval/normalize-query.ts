/**
 * Query normalisation (spec `POST /predict` step 3).
 */

/**
 * Normalises question text: Unicode NFKC, control characters removed, whitespace runs
 * collapsed to one space, trimmed. Case is kept (the analyzer lower-cases for BM25, and
 * embedding models may use case).
 */
export function normalizeQuery(text: string): string {
  return text
    .normalize("NFKC")
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}
