/**
 * JSON answers to requests Node's HTTP parser refuses before any route sees them. By default
 * Node answers these with a status line and an empty body (a header section over
 * `maxHeaderSize`, 16 KiB by default, gets `431 Request Header Fields Too Large` and nothing
 * else); {@link answerClientErrors} answers them in the endpoint set's error shape with a stable
 * code instead, with the statuses Node uses:
 *
 * | Parser error | Status | Code |
 * |---|---|---|
 * | `HPE_HEADER_OVERFLOW` (headers over `maxHeaderSize`) | 431 | `headers_too_large` |
 * | `HPE_CHUNK_EXTENSIONS_OVERFLOW` | 413 | `payload_too_large` |
 * | `ERR_HTTP_REQUEST_TIMEOUT` (`requestTimeout`, `headersTimeout`) | 408 | `request_timeout` |
 * | any other (a malformed request line, header or body framing) | 400 | `invalid_request` |
 *
 * Source: Node's `lib/_http_server.js` (`socketOnError`), the `clientError` event of `http.Server`.
 */
import type { Duplex } from "node:stream";
import type { DocqaErrorCode } from "@docqa/core";
import type { ErrorFormat } from "./create-docqa-app.js";

/** A server that reports client errors: `http.Server`, or what `@hono/node-server`'s `serve` returns. */
export interface ClientErrorSource {
  on(event: "clientError", listener: (error: Error, socket: Duplex) => void): unknown;
}

/** A client error Node reports before the request reaches the app. */
interface ClientError extends Error {
  code?: string;
}

/** Status, reason phrase, code and message of a client error (module documentation). */
export function describeClientError(error: ClientError): { status: number; reason: string; code: DocqaErrorCode; message: string } {
  switch (error.code) {
    case "HPE_HEADER_OVERFLOW":
      return {
        status: 431,
        reason: "Request Header Fields Too Large",
        code: "headers_too_large",
        message: "the request's headers are larger than the server accepts (16 KiB by default, Node's maxHeaderSize): send smaller headers",
      };
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return {
        status: 413,
        reason: "Payload Too Large",
        code: "payload_too_large",
        message: "the request's chunk extensions are too large",
      };
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return { status: 408, reason: "Request Timeout", code: "request_timeout", message: "the request was not received in time" };
    default:
      return { status: 400, reason: "Bad Request", code: "invalid_request", message: "the request is not valid HTTP/1.1" };
  }
}

/**
 * Answers every request Node's HTTP parser refuses with a JSON body of `errors.body` (the
 * endpoint set's shape) and the status of {@link describeClientError}, then closes the
 * connection; a connection that was reset, or whose response has begun, is only closed.
 *
 * @example
 * ```ts
 * const server = serve({ fetch: predictRoutes(service).fetch, port: 8002 });
 * answerClientErrors(server, setAErrors);
 * ```
 */
export function answerClientErrors(server: ClientErrorSource, errors: Pick<ErrorFormat, "body">): void {
  server.on("clientError", (error: ClientError, socket: Duplex) => {
    const response = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code === "ECONNRESET" || !socket.writable || response?.headersSent) {
      socket.destroy();
      return;
    }
    const { status, reason, code, message } = describeClientError(error);
    const body = JSON.stringify(errors.body(code, message));
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
