/**
 * The spec's `POST /upsert` as a library function: the `documents` map is validated as a whole
 * (one zod schema, every problem reported at once, nothing written when any document is
 * invalid), checked against the write rules as a whole (nothing written when any document is
 * refused), then chunked, embedded and written in one atomic write (`indexDocuments`).
 */
import { z } from "zod";
import type { Principal } from "../acl/principal.js";
import { sourceFromInput } from "../chunking/source-document.js";
import { DocqaError } from "../errors/docqa-error.js";
import { raptorDocumentPrefix } from "../raptor/build-raptor-nodes.js";
import { type DocumentInput, documentIdSchema, documentInputSchema } from "./document-input.js";
import { type IndexingDependencies, indexDocuments } from "./index-documents.js";

/** Schema of a key of the `documents` map: a document id outside the summary nodes' namespace. */
const documentKeySchema = documentIdSchema.refine((docId) => !docId.startsWith(raptorDocumentPrefix), {
  message: `the prefix "${raptorDocumentPrefix}" is reserved for summary nodes`,
});

/** Schema of the `documents` map: at least one document, each key a valid document id. */
export const upsertDocumentsSchema = z.record(z.string(), documentInputSchema).superRefine((documents, context) => {
  const keys = Object.keys(documents);
  if (keys.length === 0) context.addIssue({ code: "custom", message: "documents must contain at least one document" });
  for (const key of keys) {
    const checked = documentKeySchema.safeParse(key);
    if (!checked.success)
      context.addIssue({ code: "custom", path: [key], message: checked.error.issues[0]?.message ?? "invalid document id" });
  }
});

/** Input of {@link upsertDocuments}. */
export interface UpsertDocumentsInput {
  orgId: string;
  /** Who writes: the write rules decide with this principal. */
  principal: Principal;
  /** Owner of new documents without `metadata.owner_id`; default the principal (another user: administrators only). */
  uploader?: string | undefined;
  /** The request's correlation id, for the audit trail. */
  requestId?: string | undefined;
  /** The documents, validated by {@link parseUpsertDocuments}. */
  documents: Readonly<Record<string, DocumentInput>>;
  signal?: AbortSignal | undefined;
}

/** Outcome of {@link upsertDocuments}. */
export interface UpsertDocumentsResult {
  /** Chunks of the request's documents (written or already stored), without summary nodes. */
  numChunks: number;
  /** Documents written (created, replaced or re-stamped). */
  written: number;
  /** Documents whose owner or ACL alone changed: re-stamped without re-embedding (part of `written`). */
  accessChanged: number;
  /** Documents skipped because their content hash was unchanged. */
  unchanged: number;
  /** RAPTOR summary nodes written. */
  summaries: number;
}

/**
 * Checks the number of documents of an `/upsert` before anything else reads them (cheap: the
 * map's keys are only counted).
 *
 * @throws {DocqaError} `too_many_documents` (413) above `maxDocuments` (`MAX_UPSERT_DOCUMENTS`).
 */
export function assertUpsertDocumentCount(documents: unknown, maxDocuments: number): void {
  if (typeof documents !== "object" || documents === null) return;
  const count = Object.keys(documents).length;
  if (count > maxDocuments) {
    throw new DocqaError(
      "too_many_documents",
      `the request holds ${count} documents; the limit is ${maxDocuments} per request (MAX_UPSERT_DOCUMENTS): send them in several requests`,
      { component: "service" },
    );
  }
}

/**
 * Validates the `documents` map.
 *
 * @param maxContentChars - most characters of a document's `content` (`MAX_EXTRACTED_CHARS`); default no limit.
 * @throws {DocqaError} `invalid_request` listing every problem as `documents["<id>"].<path>: <message>`;
 *   `payload_too_large` (413) for a document longer than `maxContentChars`.
 */
export function parseUpsertDocuments(documents: unknown, maxContentChars = Number.POSITIVE_INFINITY): Record<string, DocumentInput> {
  const parsed = upsertDocumentsSchema.safeParse(documents ?? {});
  if (parsed.success) {
    for (const [docId, document] of Object.entries(parsed.data)) {
      if (document.content.length > maxContentChars) {
        throw new DocqaError(
          "payload_too_large",
          `document ${JSON.stringify(docId)} has ${document.content.length} characters; the limit is ${maxContentChars} (MAX_EXTRACTED_CHARS)`,
          { component: "service" },
        );
      }
    }
    return parsed.data;
  }
  const problems = parsed.error.issues.map((issue) => {
    if (issue.path.length === 0) return issue.message;
    const [docId, ...rest] = issue.path;
    return `documents[${JSON.stringify(String(docId))}]${rest.length > 0 ? `.${rest.join(".")}` : ""}: ${issue.message}`;
  });
  throw new DocqaError(
    "invalid_request",
    problems.length === 1 && !problems[0]?.startsWith("documents[") ? (problems[0] as string) : `invalid documents: ${problems.join("; ")}`,
    {
      component: "service",
      details: problems,
    },
  );
}

/**
 * Indexes validated documents atomically; each replaces its previous version.
 *
 * @throws {DocqaError} `forbidden` when the write rules refuse any document (nothing written);
 *   `store_unavailable` when a store fails (nothing is acknowledged then).
 */
export async function upsertDocuments(dependencies: IndexingDependencies, input: UpsertDocumentsInput): Promise<UpsertDocumentsResult> {
  const entries = Object.entries(input.documents);
  const result = await indexDocuments(dependencies, {
    orgId: input.orgId,
    principal: input.principal,
    uploader: input.uploader,
    documents: entries.map(([docId, document]) => sourceFromInput(docId, document)),
    via: "upsert",
    requestId: input.requestId,
    signal: input.signal,
  });
  const written = result.documents.filter((document) => document.status === "written").length;
  const accessChanged = result.documents.filter((document) => document.outcome === "access_changed").length;
  const numChunks = result.documents.reduce((sum, document) => sum + document.chunks, 0);
  dependencies.logger.info("documents upserted", {
    component: "service",
    org_id: input.orgId,
    documents: entries.length,
    written,
    chunks: numChunks,
    summaries: result.summaries,
  });
  return { numChunks, written, accessChanged, unchanged: entries.length - written, summaries: result.summaries };
}
