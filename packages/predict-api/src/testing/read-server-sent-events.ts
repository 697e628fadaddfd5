/**
 * Test helper: the events of a whole `text/event-stream` response body (WHATWG HTML,
 * "Server-sent events"), each `data` parsed as JSON, as `/predict` streams them.
 */
import { parseEventStream } from "@docqa/http/testing";

/** One event of a stream. */
export interface ServerSentEvent {
  /** The `event:` field; `message` when absent. */
  event: string;
  /** The `data:` lines joined and parsed as JSON. */
  data: unknown;
}

/**
 * Reads a whole response body into its events.
 *
 * @throws when the body is not `text/event-stream` or an event's data is not JSON.
 */
export async function readServerSentEvents(response: Response): Promise<ServerSentEvent[]> {
  const type = response.headers.get("Content-Type");
  if (type !== "text/event-stream") throw new Error(`expected text/event-stream, got ${type} (status ${response.status})`);
  return parseEventStream(await response.text()).map(({ event, data }) => ({ event, data: JSON.parse(data) }));
}
