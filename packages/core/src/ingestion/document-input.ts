/**
 * The Document resource of `POST /upsert` (spec "Document"), validated at the boundary.
 */
import { z } from "zod";

/** Largest accepted document id, in characters. */
export const maximumDocumentIdLength = 512;

/** Schema of a document id: the key of the `documents` map. */
export const documentIdSchema = z
  .string()
  .min(1, "document id must not be empty")
  .max(maximumDocumentIdLength, `document id must be at most ${maximumDocumentIdLength} characters`)
  .refine((value) => !/[\u0000-\u001f\u007f]/.test(value), "document id must not contain control characters");

/** Schema of a document's metadata; keys beyond the named ones are kept. */
export const documentMetadataSchema = z
  .object({
    source: z.string().optional(),
    owner_id: z.string().optional(),
    acl: z.string().optional(),
    created_at: z
      .string()
      .refine((value) => !Number.isNaN(Date.parse(value)), "created_at must be an ISO 8601 date")
      .optional(),
  })
  .catchall(z.unknown());

/** Schema of a Document. */
export const documentInputSchema = z.object({
  title: z.string(),
  content: z.string().refine((value) => value.trim() !== "", "content must not be empty"),
  metadata: documentMetadataSchema.optional(),
});

/** A Document as given to `upsert`. */
export type DocumentInput = z.infer<typeof documentInputSchema>;
