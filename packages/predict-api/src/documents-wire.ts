/**
 * Set A's wire shapes of the documents API (`GET /documents`, `GET` and `DELETE
 * /documents/{doc_id}`, snake_case): the schemas of its OpenAPI document and the mapping of the
 * service's results onto them. The routes are `@docqa/http`'s `addDocumentRoutes`.
 */
import type { DocumentSummary } from "@docqa/core";
import { type DocumentsWire, documentCursorPattern } from "@docqa/http";
import { z } from "@hono/zod-openapi";

/** A stored document as the documents API shows it (metadata only, never content). */
export const storedDocumentSchema = z
  .object({
    doc_id: z.string().openapi({ example: "handbook.pdf" }),
    title: z.string().openapi({ example: "Employee handbook" }),
    owner_id: z.string().openapi({ description: "The owner's e-mail, lower-cased; empty when none.", example: "ann@example.com" }),
    acl: z.string().openapi({ description: "The ACL; empty when only the owner may read.", example: "|group:hr|" }),
    source: z.string().openapi({ description: "`metadata.source`, or empty.", example: "intranet" }),
    type: z.string().openapi({ description: "`metadata.type` (a file's format), or empty.", example: "pdf" }),
    num_chunks: z.number().int().openapi({ description: "Chunks indexed for the document.", example: 42 }),
    updated_at: z
      .string()
      .openapi({ description: "When its current version was written (ISO 8601, UTC).", example: "2024-05-01T09:30:00.000Z" }),
  })
  .openapi("StoredDocument");

/** Query of `GET /documents`. */
export const documentListQuerySchema = z.object({
  source: z.string().optional().openapi({ description: "Only documents with this `metadata.source`." }),
  type: z.string().optional().openapi({ description: "Only documents with this `metadata.type`, for example `pdf`." }),
  owner: z.string().optional().openapi({ description: "Only documents owned by this e-mail (case-insensitive)." }),
  limit: z.coerce.number().int().min(1).max(1000).optional().openapi({ description: "Page size, 1 to 1000; default 50.", example: 50 }),
  cursor: z.string().regex(documentCursorPattern).optional().openapi({ description: "`next_cursor` of the previous page (base64url)." }),
});

/** Response of `GET /documents`. */
export const documentListResponseSchema = z
  .object({
    documents: z.array(storedDocumentSchema).openapi({ description: "In ascending `doc_id` order." }),
    next_cursor: z.string().nullable().openapi({ description: "Pass as `cursor` for the next page; null on the last page." }),
  })
  .openapi("DocumentList");

/** Path of `GET` and `DELETE /documents/{doc_id}`. */
export const documentParamsSchema = z.object({
  doc_id: z
    .string()
    .min(1)
    .openapi({
      param: { name: "doc_id", in: "path" },
      description: "The document id, percent-encoded (`/` as `%2F`).",
      example: "handbook.pdf",
    }),
});

/** Response of `DELETE /documents/{doc_id}`. */
export const deleteDocumentResponseSchema = z
  .object({
    status: z.literal("success"),
    doc_id: z.string(),
    num_chunks: z.number().int().openapi({ description: "Chunks of the document deleted." }),
    num_summaries: z.number().int().openapi({ description: "Summary nodes built from it deleted with it." }),
  })
  .openapi("DeleteDocumentResponse");

/** A document of the documents API in set A's field names. */
function storedDocument(document: DocumentSummary): z.input<typeof storedDocumentSchema> {
  return {
    doc_id: document.docId,
    title: document.title,
    owner_id: document.ownerId,
    acl: document.acl,
    source: document.source,
    type: document.type,
    num_chunks: document.chunkCount,
    updated_at: document.updatedAt,
  };
}

/** Set A's documents API: `/documents`, `{doc_id}`, snake_case fields. */
export const setADocuments: DocumentsWire<
  typeof storedDocumentSchema,
  typeof documentListResponseSchema,
  typeof deleteDocumentResponseSchema
> = {
  path: "/documents",
  idParam: "doc_id",
  listQuery: documentListQuerySchema,
  params: documentParamsSchema,
  stored: storedDocumentSchema,
  list: documentListResponseSchema,
  deleted: deleteDocumentResponseSchema,
  storedDocument,
  page: (page) => ({ documents: page.documents.map(storedDocument), next_cursor: page.nextCursor }),
  deletion: (docId, result) => ({ status: "success", doc_id: docId, num_chunks: result.chunks, num_summaries: result.summaries }),
};
