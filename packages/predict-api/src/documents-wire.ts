/**
 * Set A's wire shapes of the documents API (`GET /documents`, `GET` and `DELETE
 * /documents/{doc_id}`, snake_case): the schemas of its OpenAPI document and the mapping of the
 * service's results onto them. The routes are `@docqa/http`'s `addDocumentRoutes`.
 */
import type { DocumentSummary } from "@docqa/core";
import { type DocumentsWire, documentCursorFilter, documentFields, documentListFilters, documentParams } from "@docqa/http";
import { z } from "@hono/zod-openapi";

/** A stored document as the documents API shows it (metadata only, never content). */
export const storedDocumentSchema = z
  .object({
    doc_id: z.string().openapi({ example: "handbook.pdf" }),
    title: documentFields.title,
    owner_id: documentFields.owner,
    acl: documentFields.acl,
    source: documentFields.source,
    type: documentFields.type,
    num_chunks: documentFields.chunks,
    updated_at: documentFields.updatedAt,
  })
  .openapi("StoredDocument");

/** Query of `GET /documents`. */
export const documentListQuerySchema = z.object({
  source: documentListFilters.source,
  type: z.string().optional().openapi({ description: "Only documents with this `metadata.type`, for example `pdf`." }),
  owner: documentListFilters.owner,
  limit: documentListFilters.limit,
  cursor: documentCursorFilter("next_cursor"),
});

/** Response of `GET /documents`. */
export const documentListResponseSchema = z
  .object({
    documents: z.array(storedDocumentSchema).openapi({ description: "In ascending `doc_id` order." }),
    next_cursor: documentFields.nextCursor,
  })
  .openapi("DocumentList");

/** Path of `GET` and `DELETE /documents/{doc_id}`. */
export const documentParamsSchema = documentParams("doc_id");

/** Response of `DELETE /documents/{doc_id}`. */
export const deleteDocumentResponseSchema = z
  .object({
    status: z.literal("success"),
    doc_id: z.string(),
    num_chunks: documentFields.deletedChunks,
    num_summaries: documentFields.deletedSummaries,
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
