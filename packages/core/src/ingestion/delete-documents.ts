/**
 * Deleting documents: the write rules decide for every document (one refusal refuses the whole
 * call, nothing deleted), then each document goes with everything built from it (its chunks,
 * vectors and full-text entries, the RAPTOR summary nodes that covered it, and documents derived
 * from it), in one write of the stores: atomic for the embedded store, and per document on
 * server engines, where removing the registry entry is the moment readers stop seeing it (see
 * `DocumentStores`). Summaries that also covered other documents are dropped, not rebuilt: they
 * come back with those documents' next content change. One audit line per document.
 */
import type { Principal } from "../acl/principal.js";
import { DocqaError } from "../errors/docqa-error.js";
import { summaryDocumentPrefix } from "../stores/document-registry.js";
import { auditEvent, authorizeWrites, type WriteContext } from "./authorize-writes.js";
import type { IndexingDependencies } from "./index-documents.js";

/** What {@link deleteDocuments} deletes. */
export interface DeleteDocumentsRequest {
  orgId: string;
  /** Who deletes: the write rules decide with this principal. */
  principal: Principal;
  docIds: readonly string[];
  /** Fail with `not_found` when a document does not exist (default: missing ids are a no-op). */
  requireExisting?: boolean | undefined;
  /** The request's correlation id, for the audit trail. */
  requestId?: string | undefined;
}

/** Outcome of {@link deleteDocuments}. */
export interface DeleteDocumentsResult {
  /** The documents deleted (those of the request that existed). */
  deleted: string[];
  /** Chunks of the deleted documents. */
  chunks: number;
  /** Summary nodes (RAPTOR documents) deleted with them. */
  summaries: number;
}

/**
 * Deletes documents and everything built from them (module documentation). Summary node ids
 * (`raptor:...`) cannot be deleted directly: they count as missing.
 *
 * @throws {DocqaError} `not_found` when `requireExisting` and a document does not exist;
 *   `forbidden` when the write rules refuse any document (nothing deleted; `details` lists
 *   them); `store_unavailable` from the stores.
 */
export async function deleteDocuments(
  dependencies: Pick<IndexingDependencies, "config" | "stores" | "audit">,
  request: DeleteDocumentsRequest,
): Promise<DeleteDocumentsResult> {
  const { stores } = dependencies;
  const context: WriteContext = {
    orgId: request.orgId,
    principal: request.principal,
    adminRoles: dependencies.config.access.adminRoles,
    via: "delete",
    requestId: request.requestId,
    audit: dependencies.audit,
  };
  const requested = [...new Set(request.docIds)].filter((docId) => !docId.startsWith(summaryDocumentPrefix));
  const records = await stores.registry.describeDocuments(request.orgId, requested);
  const missing = [...new Set(request.docIds)].filter((docId) => !records.has(docId));
  if (request.requireExisting && missing.length > 0) {
    throw new DocqaError(
      "not_found",
      missing.length === 1
        ? `no document ${JSON.stringify(missing[0])} in this organisation`
        : `${missing.length} of the documents do not exist in this organisation: ${missing
            .slice(0, 5)
            .map((docId) => JSON.stringify(docId))
            .join(", ")}`,
      { component: "access", details: missing.map((docId) => ({ doc_id: docId })) },
    );
  }
  const existing = requested.filter((docId) => records.has(docId));
  if (existing.length === 0) return { deleted: [], chunks: 0, summaries: 0 };
  const decided = authorizeWrites(
    context,
    existing.map((docId) => ({ docId, action: "delete" as const })),
    records,
  );

  // Everything built from the documents, transitively (summaries of summaries live in one
  // summary document, but a file's records may have summaries of their own).
  const removed = new Set(existing);
  let frontier = existing;
  while (frontier.length > 0) {
    const derived = (await stores.registry.derivedDocuments(request.orgId, frontier)).filter((docId) => !removed.has(docId));
    for (const docId of derived) removed.add(docId);
    frontier = derived;
  }
  const derivedDocuments = [...removed].filter((docId) => !records.has(docId) && !docId.startsWith(summaryDocumentPrefix));
  if (derivedDocuments.length > 0) {
    const derivedRecords = await stores.registry.describeDocuments(request.orgId, derivedDocuments);
    authorizeWrites(
      context,
      [...derivedRecords.keys()].map((docId) => ({ docId, action: "delete" as const })),
      derivedRecords,
    );
  }
  try {
    await stores.write(request.orgId, [], { deleteDocIds: [...removed] });
  } catch (error) {
    const code = DocqaError.isInstance(error) ? error.code : "internal_error";
    for (const docId of existing) context.audit.record(auditEvent(context, docId, "delete", "failed", { code }));
    throw error;
  }
  for (const write of decided) context.audit.record(auditEvent(context, write.docId, "delete", "deleted", { rule: write.decision.rule }));
  for (const docId of derivedDocuments) context.audit.record(auditEvent(context, docId, "delete", "deleted"));
  return {
    deleted: existing,
    chunks: existing.reduce((sum, docId) => sum + (records.get(docId)?.chunkCount ?? 0), 0),
    summaries: [...removed].filter((docId) => docId.startsWith(summaryDocumentPrefix)).length,
  };
}
