/**
 * Sending `_bulk` requests: operations split into bounded batches, a few batches in flight, each
 * durable and searchable when acknowledged, and items the engine rejected as overloaded sent
 * again with back-off. Reading the answers is `bulk-response.ts`.
 */
import { DocqaError } from "@docqa/core";
import { bulkFailures, describeBulkFailures, isRetryableFailure } from "./bulk-response.js";
import { type BulkLimits, type BulkOperation, bulkBatches, bulkBody } from "./chunk-documents.js";
import { encodePathSegment, type SearchEngineClient } from "./search-engine-client.js";

/** Options of {@link sendBulk}. */
export interface SendBulkOptions {
  /** Most documents and bytes per request. */
  limits: BulkLimits;
  /** Called with the alias when the engine answers that its index does not exist. */
  onIndexMissing: (alias: string) => void;
}

/** Bulk requests sent at once by one write. */
const bulkConcurrency = 2;
/** Attempts of a bulk item the engine rejected as overloaded (HTTP 429), and the first back-off. */
const overloadAttempts = 3;
const overloadBackoffMs = 250;

/**
 * Sends `operations` to `alias` in bounded batches (two at a time), each with
 * `refresh=wait_for` (durable and searchable when acknowledged) and `require_alias=true` (never
 * auto-creates an index). Items the engine rejects as overloaded are sent again, up to three
 * times; any other failed item fails the call.
 *
 * @param what - what is written, for messages (for example `writing 12 chunks`).
 * @throws {DocqaError} `store_unavailable` naming the failed items (`details.failures`, at most 20).
 */
export async function sendBulk(
  search: SearchEngineClient,
  alias: string,
  operations: readonly BulkOperation[],
  what: string,
  options: SendBulkOptions,
): Promise<void> {
  const batches = bulkBatches(operations, options.limits);
  let next = 0;
  const worker = async () => {
    while (next < batches.length) {
      const batch = batches[next++] as BulkOperation[];
      await sendBatch(search, alias, batch, what, options);
    }
  };
  await Promise.all(Array.from({ length: Math.min(bulkConcurrency, batches.length) }, worker));
}

async function sendBatch(search: SearchEngineClient, alias: string, batch: BulkOperation[], what: string, options: SendBulkOptions) {
  let pending = batch;
  for (let attempt = 1; ; attempt++) {
    const response = await search.request({
      method: "POST",
      path: `/${encodePathSegment(alias)}/_bulk`,
      querystring: { refresh: "wait_for", require_alias: true },
      bulkBody: bulkBody(pending),
    });
    const ids = pending.map(operationId);
    const failures = bulkFailures(response.body, ids);
    if (failures.length === 0) return;
    const retryable = failures.every(isRetryableFailure);
    if (!retryable || attempt >= overloadAttempts) {
      // The index was deleted behind our back: forget it, so that the next write creates it again.
      if (failures.some((failure) => failure.type === "index_not_found_exception")) options.onIndexMissing(alias);
      throw new DocqaError("store_unavailable", `${what} in ${alias}: ${describeBulkFailures(failures, pending.length)}`, {
        component: search.engine,
        details: { failures: failures.slice(0, 20) },
      });
    }
    pending = failures.map((failure) => pending[failure.position] as BulkOperation);
    await new Promise((resolve) => setTimeout(resolve, overloadBackoffMs * 2 ** (attempt - 1)));
  }
}

/** The `_id` of a bulk operation ("" when it has none). */
function operationId(operation: BulkOperation): string {
  const action = Object.values(operation.action)[0] as { _id?: unknown } | undefined;
  return typeof action?._id === "string" ? action._id : "";
}
