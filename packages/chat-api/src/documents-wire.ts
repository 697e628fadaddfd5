/**
 * Set B's wire shapes of the documents API (`GET /api/documents`, `GET` and `DELETE
 * /api/documents/{id}`, camelCase): the schemas of its OpenAPI document and the mapping of the
 * service's results onto them. The routes are `@docqa/http`'s `addDocumentRoutes`.
 */
import type { DocumentSummary } from "@docqa/core";
import { type DocumentsWire, documentCursorFilter, documentFields, documentListFilters, documentParams } from "@docqa/http";
import { z } from "@hono/zod-openapi";

/** A stored document as `/api/documents` shows it (metadata only, never content). */
export const storedDocumentSchema = z
  .object({
    id: z.string().openapi({ description: "The document id (a file's name, or the key given to `/upsert`).", example: "handbook.pdf" }),
    title: documentFields.title,
    owner: documentFields.owner,
    acl: documentFields.acl,
    source: documentFields.source,
    type: documentFields.type,
    chunks: documentFields.chunks,
    updatedAt: documentFields.updatedAt,
  })
  .openapi("StoredDocument");

/** Query of `GET /api/documents`. */
export const documentListQuerySchema = z.object({
  source: documentListFilters.source,
  type: z.string().optional().openapi({ description: "Only documents of this type, for example `pdf`." }),
  owner: documentListFilters.owner,
  limit: documentListFilters.limit,
  cursor: documentCursorFilter("nextCursor"),
});

/** Response of `GET /api/documents`. */
export const documentListResponseSchema = z
  .object({
    documents: z.array(storedDocumentSchema).openapi({ description: "In ascending `id` order." }),
    nextCursor: documentFields.nextCursor,
  })
  .openapi("DocumentList");

/** Path of `GET` and `DELETE /api/documents/{id}`. */
export const documentParamsSchema = documentParams("id");

/** Response of `DELETE /api/documents/{id}`. */
export const deleteDocumentResponseSchema = z
  .object({
    deleted: z.string().openapi({ description: "The deleted document's id." }),
    chunks: documentFields.deletedChunks,
    summaries: documentFields.deletedSummaries,
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
