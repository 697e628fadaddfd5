/**
 * The write rules (`authorizeWrite`) applied to a whole request: every document it writes or
 * deletes is decided against the stored owner, and one refusal refuses the request, with nothing
 * written and one audit line per document. Used by every entry point that writes (`upsert`,
 * file ingestion, deletion).
 */
import { authorizeWrite, type WriteDecision } from "../acl/authorize-write.js";
import { normalizeAccessName, type Principal } from "../acl/principal.js";
import { DocqaError } from "../errors/docqa-error.js";
import type { AuditEvent, AuditLog } from "../logging/audit-log.js";
import type { DocumentRecord } from "../stores/document-registry.js";

/** One document a request writes or deletes. */
export interface PlannedWrite {
  docId: string;
  action: "upsert" | "delete";
  /** For `upsert`: the owner the request names (`metadata.owner_id`, or an explicit uploader of a new document). */
  requestedOwner?: string | undefined;
}

/** A planned write with the stored record it applies to and the decision. */
export interface AuthorizedWrite extends PlannedWrite {
  /** The stored document, when one exists. */
  stored: DocumentRecord | undefined;
  decision: WriteDecision;
}

/** Who writes, where, through which entry point: what audit lines and errors name. */
export interface WriteContext {
  orgId: string;
  principal: Principal;
  /** `ADMIN_ROLES`. */
  adminRoles: readonly string[];
  via: AuditEvent["via"];
  requestId?: string | undefined;
  audit: AuditLog;
}

/** The audit event of one document, with the actor from `context`. */
export function auditEvent(
  context: WriteContext,
  docId: string,
  action: AuditEvent["action"],
  outcome: AuditEvent["outcome"],
  extra: Pick<AuditEvent, "rule" | "code"> = {},
): AuditEvent {
  return {
    action,
    orgId: context.orgId,
    actor: normalizeAccessName(context.principal.userName),
    actorRoles: context.principal.roles.map(normalizeAccessName),
    docId,
    outcome,
    via: context.via,
    requestId: context.requestId,
    ...extra,
  };
}

/**
 * Decides every planned write with `authorizeWrite` against `records` (the stored documents,
 * from `DocumentRegistry.describeDocuments`).
 *
 * @throws {DocqaError} `forbidden` when any document is refused: nothing may then be written.
 *   `details` lists each refused document as `{ doc_id, rule, reason }`. Before throwing, one
 *   audit line per planned document is recorded (`forbidden`, or `not_written` for the allowed
 *   ones).
 */
export function authorizeWrites(
  context: WriteContext,
  planned: readonly PlannedWrite[],
  records: ReadonlyMap<string, DocumentRecord>,
): AuthorizedWrite[] {
  const decided = planned.map((write): AuthorizedWrite => {
    const stored = records.get(write.docId);
    const decision = authorizeWrite(
      context.principal,
      { action: write.action, storedOwner: stored?.ownerId, requestedOwner: write.requestedOwner },
      context.adminRoles,
    );
    return { ...write, stored, decision };
  });
  const refused = decided.filter((write) => !write.decision.allowed);
  if (refused.length === 0) return decided;
  for (const write of decided) {
    const action = write.action === "delete" ? "delete" : "write";
    context.audit.record(
      write.decision.allowed
        ? auditEvent(context, write.docId, action, "not_written", { rule: write.decision.rule })
        : auditEvent(context, write.docId, action, "forbidden", { rule: write.decision.rule, code: "forbidden" }),
    );
  }
  const verb = (write: AuthorizedWrite) => (write.action === "delete" ? "delete" : write.stored ? "replace" : "create");
  const first = refused[0] as AuthorizedWrite;
  const message =
    refused.length === 1 && decided.length === 1
      ? `may not ${verb(first)} document ${JSON.stringify(first.docId)}: ${first.decision.reason}`
      : `may not write ${refused.length} of the ${decided.length} documents of this request (${refused
          .slice(0, 5)
          .map((write) => `${JSON.stringify(write.docId)}: ${write.decision.reason}`)
          .join("; ")}${refused.length > 5 ? "; ..." : ""}); nothing was written`;
  throw new DocqaError("forbidden", message, {
    component: "access",
    details: refused.map((write) => ({ doc_id: write.docId, rule: write.decision.rule, reason: write.decision.reason })),
  });
}
