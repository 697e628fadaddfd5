/**
 * The audit trail of document writes: one structured line per document per write or delete,
 * saying who did what to which document of which organisation, and how it ended. Never any
 * document content (titles and text stay out; the document id is the file name or the key the
 * caller chose).
 */
import type { Logger } from "./logger.js";

/** How a write or delete of one document ended. */
export type AuditOutcome =
  /** A new document was written. */
  | "created"
  /** A stored document was replaced by a version with other content. */
  | "replaced"
  /** Only the owner or the ACL changed: the stored chunks were re-stamped, nothing re-embedded. */
  | "access_changed"
  /** The stored version was already this one; nothing was written. */
  | "unchanged"
  /** The document was deleted. */
  | "deleted"
  /** The write rules refused it (`forbidden`); nothing of the request was written. */
  | "forbidden"
  /** Allowed, but not written because another document of the same request was refused. */
  | "not_written"
  /** The stores failed (`store_unavailable`, ...); nothing of the request was acknowledged. */
  | "failed";

/** One line of the audit trail. */
export interface AuditEvent {
  /** `write` (upsert or file ingestion) or `delete`. */
  action: "write" | "delete";
  /** The organisation (`org_id`). */
  orgId: string;
  /** Who: the principal's user name, lower-cased (`""` for a principal without one). */
  actor: string;
  /** The actor's roles, lower-cased (they may have made it an administrator). */
  actorRoles: readonly string[];
  /** The document. */
  docId: string;
  outcome: AuditOutcome;
  /** The write rule that decided (`authorizeWrite`), when one did. */
  rule?: number | undefined;
  /** The entry point: `upsert`, `ingest`, `delete`. */
  via: "upsert" | "ingest" | "delete";
  /** The request's correlation id, when known. */
  requestId?: string | undefined;
  /** The error code of a `failed` or `forbidden` outcome. */
  code?: string | undefined;
}

/** Where audit lines go. */
export interface AuditLog {
  record(event: AuditEvent): void;
}

/**
 * An audit log writing each event as one `info` line `audit` of `logger`, with the fields
 * `event` (`document.write` or `document.delete`), `org_id`, `actor`, `actor_roles`, `doc_id`,
 * `outcome`, `rule`, `via`, `request_id` and `code`. Lines below the logger's level are dropped:
 * pass your own {@link AuditLog} to `createRagService({ audit })` to keep them whatever `LOG_LEVEL` is.
 */
export function auditLogFromLogger(logger: Logger): AuditLog {
  return {
    record(event) {
      logger.info("audit", {
        component: "audit",
        event: `document.${event.action}`,
        org_id: event.orgId,
        actor: event.actor,
        actor_roles: [...event.actorRoles],
        doc_id: event.docId,
        outcome: event.outcome,
        ...(event.rule === undefined ? {} : { rule: event.rule }),
        via: event.via,
        ...(event.requestId === undefined ? {} : { request_id: event.requestId }),
        ...(event.code === undefined ? {} : { code: event.code }),
      });
    },
  };
}
