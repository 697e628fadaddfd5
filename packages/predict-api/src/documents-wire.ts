/**
 * Set A's wire shapes of the documents API (`GET /documents`, `GET` and `DELETE
 * /documents/{doc_id}`, snake_case): the schemas of its OpenAPI document and the mapping of the
 * service's results onto them. The routes are `@docqa/http`'s `addDocumentRoutes`.
 */
import { documentFields, documentsWireOf } from "@docqa/http";
import { z } from "@hono/zod-openapi";

/** Set A's documents API: `/documents`, `{doc_id}`, snake_case fields. */
export const setADocuments = documentsWireOf({
  path: "/documents",
  names: { id: "doc_id", owner: "owner_id", chunks: "num_chunks", updatedAt: "updated_at", nextCursor: "next_cursor" },
  id: z.string().openapi({ example: "handbook.pdf" }),
  typeDescription: "Only documents with this `metadata.type`, for example `pdf`.",
  deleted: z
    .object({
      status: z.literal("success"),
      doc_id: z.string(),
      num_chunks: documentFields.deletedChunks,
      num_summaries: documentFields.deletedSummaries,
    })
    .openapi("DeleteDocumentResponse"),
  deletion: (docId, result) => ({ status: "success" as const, doc_id: docId, num_chunks: result.chunks, num_summaries: result.summaries }),
});

/** A stored document as `/documents` shows it (metadata only, never content). */
export const storedDocumentSchema = setADocuments.stored;
/** Query of `GET /documents`. */
export const documentListQuerySchema = setADocuments.listQuery;
/** Response of `GET /documents`. */
export const documentListResponseSchema = setADocuments.list;
/** Path of `GET` and `DELETE /documents/{doc_id}`. */
export const documentParamsSchema = setADocuments.params;
/** Response of `DELETE /documents/{doc_id}`. */
export const deleteDocumentResponseSchema = setADocuments.deleted;
