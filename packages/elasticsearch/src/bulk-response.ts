/**
 * Reading a `_bulk` answer. A bulk request succeeds as a whole (HTTP 200) even when some of its
 * items fail; each item carries its own status. Every item is checked here, so a partial failure
 * is never swallowed.
 */

/** A failed item of a bulk request. */
export interface BulkItemFailure {
  /** Position of the item in the request (0-based). */
  position: number;
  /** The action: `index`, `create`, `update` or `delete`. */
  action: string;
  /** The item's `_id`. */
  id: string;
  /** The item's HTTP status. */
  status: number;
  /** The engine's error type, for example `mapper_parsing_exception`. */
  type: string;
  /** The engine's reason. */
  reason: string;
}

/**
 * The failed items of a bulk answer. A `delete` of a document that does not exist (status 404,
 * `result: not_found`) is not a failure: deleting is idempotent. Items missing from the answer
 * (fewer items than `ids`) count as failures with status 0 and type `missing_item`.
 *
 * @param body - the parsed `_bulk` response body.
 * @param ids - the `_id` of each item sent, in order (names failures that the answer lacks).
 */
export function bulkFailures(body: unknown, ids: readonly string[]): BulkItemFailure[] {
  const items = (typeof body === "object" && body !== null ? (body as { items?: unknown }).items : undefined) as unknown;
  const list: unknown[] = Array.isArray(items) ? items : [];
  const failures: BulkItemFailure[] = [];
  for (let position = 0; position < ids.length; position++) {
    const item = list[position];
    const entry = typeof item === "object" && item !== null ? Object.entries(item as Record<string, unknown>)[0] : undefined;
    if (!entry) {
      failures.push({
        position,
        action: "unknown",
        id: ids[position] ?? "",
        status: 0,
        type: "missing_item",
        reason: "no answer for this item",
      });
      continue;
    }
    const [action, result] = entry as [string, Record<string, unknown>];
    const status = typeof result.status === "number" ? result.status : 0;
    if (action === "delete" && status === 404 && result.result === "not_found" && result.error === undefined) continue;
    if (status >= 200 && status < 300 && result.error === undefined) continue;
    const error = (typeof result.error === "object" && result.error !== null ? result.error : {}) as Record<string, unknown>;
    const causedBy = error.caused_by as { type?: unknown; reason?: unknown } | undefined;
    failures.push({
      position,
      action,
      id: typeof result._id === "string" ? result._id : (ids[position] ?? ""),
      status,
      type: typeof error.type === "string" ? error.type : typeof result.error === "string" ? result.error : "unknown_error",
      reason:
        (typeof error.reason === "string" ? error.reason : "") +
        (causedBy ? ` (caused by ${String(causedBy.type)}: ${String(causedBy.reason)})` : ""),
    });
  }
  return failures;
}

/** Whether a failed item may succeed when sent again: the engine was overloaded (HTTP 429). */
export function isRetryableFailure(failure: BulkItemFailure): boolean {
  return failure.status === 429;
}

/**
 * A one-line summary of failed items for an error message: the count, then up to `limit` items
 * as `<action> <id>: <status> <type>: <reason>`.
 */
export function describeBulkFailures(failures: readonly BulkItemFailure[], total: number, limit = 5): string {
  const shown = failures
    .slice(0, limit)
    .map((failure) => `${failure.action} ${JSON.stringify(failure.id)}: ${failure.status} ${failure.type}: ${failure.reason}`);
  const more = failures.length > limit ? `; and ${failures.length - limit} more` : "";
  return `${failures.length} of ${total} bulk items failed: ${shown.join("; ")}${more}`;
}
