/**
 * The pieces of the documents API's schemas both endpoint sets show, each with its OpenAPI
 * description: a set composes its wire shapes from them under its own field names
 * (`documents-wire.ts` of each set: snake_case in set A, camelCase in set B).
 */
import { z } from "@hono/zod-openapi";
import { documentCursorPattern } from "./request-text.js";

/** Fields of a stored document (metadata only, never content), by meaning; a set names them. */
export const documentFields = {
  title: z.string().openapi({ example: "Employee handbook" }),
  owner: z.string().openapi({ description: "The owner's e-mail, lower-cased; empty when none.", example: "ann@example.com" }),
  acl: z.string().openapi({ description: "The ACL; empty when only the owner may read.", example: "|group:hr|" }),
  source: z.string().openapi({ description: "`metadata.source`, or empty.", example: "intranet" }),
  type: z.string().openapi({ description: "`metadata.type` (a file's format), or empty.", example: "pdf" }),
  chunks: z.number().int().openapi({ description: "Chunks indexed for the document.", example: 42 }),
  updatedAt: z
    .string()
    .openapi({ description: "When its current version was written (ISO 8601, UTC).", example: "2024-05-01T09:30:00.000Z" }),
  /** The next page's cursor in a list. */
  nextCursor: z.string().nullable().openapi({ description: "Pass as `cursor` for the next page; null on the last page." }),
  /** Counts of a deletion. */
  deletedChunks: z.number().int().openapi({ description: "Chunks of the document deleted." }),
  deletedSummaries: z.number().int().openapi({ description: "Summary nodes built from it deleted with it." }),
};

/** Filters of a documents list both sets take under these names (`type` and `cursor` are the set's). */
export const documentListFilters = {
  source: z.string().optional().openapi({ description: "Only documents with this `metadata.source`." }),
  owner: z.string().optional().openapi({ description: "Only documents owned by this e-mail (case-insensitive)." }),
  limit: z.coerce.number().int().min(1).max(1000).optional().openapi({ description: "Page size, 1 to 1000; default 50.", example: 50 }),
};

/** The `cursor` filter of a documents list: the set's `nextCursorField` of the previous page. */
export function documentCursorFilter(nextCursorField: string) {
  return z
    .string()
    .regex(documentCursorPattern)
    .optional()
    .openapi({ description: `\`${nextCursorField}\` of the previous page (base64url).` });
}

/** The path of a one-document route: the document id under the set's parameter name `name`. */
export function documentParams<Name extends string>(name: Name) {
  const id = z
    .string()
    .min(1)
    .openapi({
      param: { name, in: "path" },
      description: "The document id, percent-encoded (`/` as `%2F`).",
      example: "handbook.pdf",
    });
  return z.object({ [name]: id } as Record<Name, typeof id>);
}
