/**
 * The documents API's schemas, written once with their OpenAPI descriptions: a set derives its
 * wire shapes from them under its own field names ({@link DocumentFieldNames}; `documents-wire.ts`
 * of each set: snake_case in set A, camelCase in set B), and maps the service's results with
 * {@link storedDocumentOf}.
 */
import type { DocumentSummary } from "@docqa/core";
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

/** A set's names of the documents API's fields that differ between the sets. */
export interface DocumentFieldNames {
  /** The document id, also the name of the path parameter (`doc_id`, `id`). */
  id: string;
  /** The owner's e-mail (`owner_id`, `owner`). */
  owner: string;
  /** The chunk count (`num_chunks`, `chunks`). */
  chunks: string;
  /** When the current version was written (`updated_at`, `updatedAt`). */
  updatedAt: string;
  /** The next page's cursor of a list (`next_cursor`, `nextCursor`). */
  nextCursor: string;
}

/** The zod shape of a stored document under the names `N`. */
export type StoredDocumentShape<N extends DocumentFieldNames> = Record<N["id"] | N["owner"] | N["updatedAt"], z.ZodString> &
  Record<N["chunks"], z.ZodNumber> & { title: z.ZodString; acl: z.ZodString; source: z.ZodString; type: z.ZodString };

/** The fields of a stored document in wire order: each one's name under `names`, and the `DocumentSummary` field it shows. */
function storedFields(names: DocumentFieldNames) {
  return [
    [names.id, "docId"],
    ["title", "title"],
    [names.owner, "ownerId"],
    ["acl", "acl"],
    ["source", "source"],
    ["type", "type"],
    [names.chunks, "chunkCount"],
    [names.updatedAt, "updatedAt"],
  ] as const satisfies readonly (readonly [string, keyof DocumentSummary])[];
}

/**
 * The stored document schema (OpenAPI component `StoredDocument`) under the names `names`, with
 * `id` the schema of its id (its description is the set's).
 */
export function storedDocumentSchemaOf<const N extends DocumentFieldNames>(names: N, id: z.ZodString) {
  const schemas = { ...documentFields, docId: id, ownerId: documentFields.owner, chunkCount: documentFields.chunks };
  const shape = Object.fromEntries(storedFields(names).map(([name, field]) => [name, schemas[field]]));
  return z.object(shape as StoredDocumentShape<N>).openapi("StoredDocument");
}

/** A document of the service in the set's names, as {@link storedDocumentSchemaOf} declares it. */
export function storedDocumentOf<const N extends DocumentFieldNames>(names: N) {
  const fields = storedFields(names);
  return (document: DocumentSummary) =>
    Object.fromEntries(fields.map(([name, field]) => [name, document[field]])) as z.input<z.ZodObject<StoredDocumentShape<N>>>;
}

/** The query of a documents list; `typeDescription` describes the `type` filter. */
export function documentListQueryOf(names: DocumentFieldNames, typeDescription: string) {
  return z.object({
    source: documentListFilters.source,
    type: z.string().optional().openapi({ description: typeDescription }),
    owner: documentListFilters.owner,
    limit: documentListFilters.limit,
    cursor: documentCursorFilter(names.nextCursor),
  });
}

/** The body of a documents list (OpenAPI component `DocumentList`): documents of `stored` and the next cursor. */
export function documentListOf<const N extends DocumentFieldNames, Stored extends z.ZodType>(names: N, stored: Stored) {
  const shape = {
    documents: z.array(stored).openapi({ description: `In ascending \`${names.id}\` order.` }),
    [names.nextCursor]: documentFields.nextCursor,
  };
  return z
    .object(shape as { documents: z.ZodArray<Stored> } & Record<N["nextCursor"], typeof documentFields.nextCursor>)
    .openapi("DocumentList");
}
