/**
 * How `docqa serve` stops on SIGTERM or SIGINT (docs/deployment.md, "Stopping"): the servers stop
 * accepting connections and requests in progress get a grace period to finish; then the service
 * closes, which stops ingestion between model calls and waits for the worker threads (so the
 * process never ends while a model runs, which would abort it); then the connections still open
 * are closed and the remaining resources released. Ingestion jobs left unfinished resume on the
 * next start.
 */
import { type RagService, settlesWithin } from "@docqa/core";

/** Milliseconds requests in progress may take to finish once a stop is asked, by default. */
export const defaultRequestGraceMs = 10_000;

/** Milliseconds a request still open after the service has closed gets to send its answer before its connection is closed. */
const answerGraceMs = 1_000;

/** What {@link stopServing} stops. */
export interface ServingParts {
  /** The HTTP servers: `close()` stops accepting connections and resolves once none is open; `closeConnections()` ends the open ones. */
  servers: { close(): Promise<void>; closeConnections(): void };
  service: Pick<RagService, "close">;
  /** Released last, in order (the rate limiters' store, the tracing exporter). */
  afterwards?: readonly (() => Promise<void> | void)[] | undefined;
}

/**
 * Stops serving in order: servers (requests in progress get `graceMs`, default
 * {@link defaultRequestGraceMs}), the service (ingestion tasks stop and are awaited, bounded by
 * the ingestion pool's stop timeout; a request still waiting on one is answered
 * `store_unavailable`), the connections still open, then `afterwards`. Resolves when all is
 * stopped; the caller then exits.
 */
export async function stopServing(parts: ServingParts, options: { graceMs?: number | undefined } = {}): Promise<void> {
  const serversClosed = parts.servers.close();
  const drained = await settlesWithin(serversClosed, options.graceMs ?? defaultRequestGraceMs);
  await parts.service.close();
  if (!drained && !(await settlesWithin(serversClosed, answerGraceMs))) {
    parts.servers.closeConnections();
    await serversClosed;
  }
  for (const release of parts.afterwards ?? []) await release();
}
