/**
 * Set B's wire shapes of the documents API (`GET /api/documents`, `GET` and `DELETE
 * /api/documents/{id}`, camelCase): the schemas of its OpenAPI document and the mapping of the
 * service's results onto them. The routes are `@docqa/http`'s `addDocumentRoutes`.
 */
import { documentFields, documentsWireOf } from "@docqa/http";
import { z } from "@hono/zod-openapi";

/** Set B's documents API: `/api/documents`, `{id}`, camelCase fields. */
export const setBDocuments = documentsWireOf({
  path: "/api/documents",
  names: { id: "id", owner: "owner", chunks: "chunks", updatedAt: "updatedAt", nextCursor: "nextCursor" },
  id: z.string().openapi({ description: "The document id (a file's name, or the key given to `/upsert`).", example: "handbook.pdf" }),
  typeDescription: "Only documents of this type, for example `pdf`.",
  deleted: z
    .object({
      deleted: z.string().openapi({ description: "The deleted document's id." }),
      chunks: documentFields.deletedChunks,
      summaries: documentFields.deletedSummaries,
    })
    .openapi("DeleteDocumentResponse"),
  deletion: (docId, result) => ({ deleted: docId, chunks: result.chunks, summaries: result.summaries }),
});

/** A stored document as `/api/documents` shows it (metadata only, never content). */
export const storedDocumentSchema = setBDocuments.stored;
/** Query of `GET /api/documents`. */
export const documentListQuerySchema = setBDocuments.listQuery;
/** Response of `GET /api/documents`. */
export const documentListResponseSchema = setBDocuments.list;
/** Path of `GET` and `DELETE /api/documents/{id}`. */
export const documentParamsSchema = setBDocuments.params;
/** Response of `DELETE /api/documents/{id}`. */
export const deleteDocumentResponseSchema = setBDocuments.deleted;
