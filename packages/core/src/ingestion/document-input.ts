/**
 * The Document resource of `POST /upsert` (spec "Document"), validated at the boundary; its
 * metadata schema also validates the metadata of file ingestion (`POST /api/ingest`,
 * `docqa ingest`), so both refuse the same values.
 */
import { z } from "zod";
import { DocqaError } from "../errors/docqa-error.js";
import { summaryDocumentPrefix } from "../stores/document-registry.js";

/** Largest accepted document id, in characters. */
export const maximumDocumentIdLength = 512;

/**
 * A document id `/upsert` accepts as a key of `documents`: 1 to {@link maximumDocumentIdLength}
 * characters, no control character, not in the summary nodes' namespace (`raptor:`). The same
 * rule as {@link documentIdSchema} and `upsertDocumentsSchema`, as one pattern for the OpenAPI
 * documents.
 */
export const documentIdPattern = new RegExp(String.raw`^(?!${summaryDocumentPrefix})[^\u0000-\u001f\u007f]{1,${maximumDocumentIdLength}}$`);

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

/**
 * Validates the metadata applied to ingested files with {@link documentMetadataSchema}, the
 * schema of `/upsert`'s `metadata`: an `acl` that is a list, a number or null is refused rather
 * than silently dropped (which would leave the files readable by their owner alone).
 *
 * @param label - how the message names the metadata, for example `the form field metadata`.
 * @returns the metadata as parsed (unknown keys kept).
 * @throws {DocqaError} `invalid_request` listing every problem as `<label>.<key>: <message>`.
 */
export function parseDocumentMetadata(metadata: unknown, label = "metadata"): Record<string, unknown> {
  const parsed = documentMetadataSchema.safeParse(metadata);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${[label, ...issue.path.map(String)].join(".")}: ${issue.message}`);
  throw new DocqaError("invalid_request", problems.join("; "), { component: "ingestion", details: problems });
}

/** Schema of a Document. */
export const documentInputSchema = z.object({
  title: z.string(),
  content: z.string().refine((value) => value.trim() !== "", "content must not be empty"),
  metadata: documentMetadataSchema.optional(),
});

/** A Document as given to `upsert`. */
export type DocumentInput = z.infer<typeof documentInputSchema>;
