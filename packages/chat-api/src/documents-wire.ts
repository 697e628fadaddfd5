/**
 * Set B's wire shapes of the documents API (`GET /api/documents`, `GET` and `DELETE
 * /api/documents/{id}`, camelCase): the schemas of its OpenAPI document and the mapping of the
 * service's results onto them. The routes are `@docqa/http`'s `addDocumentRoutes`.
 */
import type { DocumentSummary } from "@docqa/core";
import { type DocumentsWire, documentCursorPattern } from "@docqa/http";
import { z } from "@hono/zod-openapi";

/** A stored document as `/api/documents` shows it (metadata only, never content). */
export const storedDocumentSchema = z
  .object({
    id: z.string().openapi({ description: "The document id (a file's name, or the key given to `/upsert`).", example: "handbook.pdf" }),
    title: z.string().openapi({ example: "Employee handbook" }),
    owner: z.string().openapi({ description: "The owner's e-mail, lower-cased; empty when none.", example: "ann@example.com" }),
    acl: z.string().openapi({ description: "The ACL; empty when only the owner may read.", example: "|group:hr|" }),
    source: z.string().openapi({ description: "`metadata.source`, or empty.", example: "intranet" }),
    type: z.string().openapi({ description: "`metadata.type` (a file's format), or empty.", example: "pdf" }),
    chunks: z.number().int().openapi({ description: "Chunks indexed for the document.", example: 42 }),
    updatedAt: z
      .string()
      .openapi({ description: "When its current version was written (ISO 8601, UTC).", example: "2024-05-01T09:30:00.000Z" }),
  })
  .openapi("StoredDocument");

/** Query of `GET /api/documents`. */
export const documentListQuerySchema = z.object({
  source: z.string().optional().openapi({ description: "Only documents with this `metadata.source`." }),
  type: z.string().optional().openapi({ description: "Only documents of this type, for example `pdf`." }),
  owner: z.string().optional().openapi({ description: "Only documents owned by this e-mail (case-insensitive)." }),
  limit: z.coerce.number().int().min(1).max(1000).optional().openapi({ description: "Page size, 1 to 1000; default 50.", example: 50 }),
  cursor: z.string().regex(documentCursorPattern).optional().openapi({ description: "`nextCursor` of the previous page (base64url)." }),
});

/** Response of `GET /api/documents`. */
export const documentListResponseSchema = z
  .object({
    documents: z.array(storedDocumentSchema).openapi({ description: "In ascending `id` order." }),
    nextCursor: z.string().nullable().openapi({ description: "Pass as `cursor` for the next page; null on the last page." }),
  })
  .openapi("DocumentList");

/** Path of `GET` and `DELETE /api/documents/{id}`. */
export const documentParamsSchema = z.object({
  id: z
    .string()
    .min(1)
    .openapi({
      param: { name: "id", in: "path" },
      description: "The document id, percent-encoded (`/` as `%2F`).",
      example: "handbook.pdf",
    }),
});

/** Response of `DELETE /api/documents/{id}`. */
export const deleteDocumentResponseSchema = z
  .object({
    deleted: z.string().openapi({ description: "The deleted document's id." }),
    chunks: z.number().int().openapi({ description: "Chunks of the document deleted." }),
    summaries: z.number().int().openapi({ description: "Summary nodes built from it deleted with it." }),
  })
  .openapi("DeleteDocumentResponse");

/** A document of the documents API in set B's field names. */
function storedDocument(document: DocumentSummary): z.input<typeof storedDocumentSchema> {
  return {
    id: document.docId,
    title: document.title,
    owner: document.ownerId,
    acl: document.acl,
    source: document.source,
    type: document.type,
    chunks: document.chunkCount,
    updatedAt: document.updatedAt,
  };
}

/** Set B's documents API: `/api/documents`, `{id}`, camelCase fields. */
export const setBDocuments: DocumentsWire<
  typeof storedDocumentSchema,
  typeof documentListResponseSchema,
  typeof deleteDocumentResponseSchema
> = {
  path: "/api/documents",
  idParam: "id",
  listQuery: documentListQuerySchema,
  params: documentParamsSchema,
  stored: storedDocumentSchema,
  list: documentListResponseSchema,
  deleted: deleteDocumentResponseSchema,
  storedDocument,
  page: (page) => ({ documents: page.documents.map(storedDocument), nextCursor: page.nextCursor }),
  deletion: (docId, result) => ({ deleted: docId, chunks: result.chunks, summaries: result.summaries }),
};
