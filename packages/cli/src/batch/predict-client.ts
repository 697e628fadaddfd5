/**
 * A client of a running server's set A `POST /predict`, with the shape `askMany` calls
 * (`predict(request)`), so `docqa ask --server` runs the same batch over HTTP as in-process.
 */
import type { BatchPredictor, PredictRequest } from "@docqa/core";
import type { PredictBody } from "./answer-writer.js";

/** An error answer of the server (`{"detail", "code"}`), or a failed connection (`code` `server_unreachable`). */
export class PredictHttpError extends Error {
  /** The server's error code (`rate_limited`, `model_timeout`, ...), `http_<status>` without one, or `server_unreachable`. */
  readonly code: string;
  /** HTTP status; 0 when no answer came. */
  readonly status: number;
  constructor(code: string, status: number, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "PredictHttpError";
    this.code = code;
    this.status = status;
  }
}

/** Settings of {@link createPredictClient}. */
export interface PredictClientSettings {
  /** Base URL of set A, for example `http://127.0.0.1:8002`. */
  server: string;
  /** Bearer token (`docqa token`); the server takes the organisation from it. */
  token: string;
  /** fetch implementation; default the global one. */
  fetch?: typeof fetch | undefined;
}

/** The `email` claim of a JWT (read without verifying it: the server verifies), or undefined. */
export function tokenEmail(token: string): string | undefined {
  const payload = token.split(".")[1];
  if (!payload) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { email?: unknown };
    return typeof claims.email === "string" ? claims.email : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Creates the client. `request.orgId`, roles and groups are not sent: the server takes them from
 * the token; `principal.userName` is sent as `user_info.user_name` (it must be the token's e-mail
 * unless the server trusts `user_info`, `TRUST_USER_INFO`).
 *
 * @throws {PredictHttpError} from `predict`, for a non-2xx answer or a failed connection.
 */
export function createPredictClient(settings: PredictClientSettings): BatchPredictor<PredictBody> {
  const url = `${settings.server.replace(/\/+$/, "")}/predict`;
  const send = settings.fetch ?? fetch;
  return {
    async predict(request: PredictRequest): Promise<PredictBody> {
      let response: Response;
      try {
        response = await send(url, {
          method: "POST",
          headers: { Authorization: `Bearer ${settings.token}`, "Content-Type": "application/json", Accept: "application/json" },
          body: JSON.stringify({
            query: request.query,
            user_info: { user_name: request.principal.userName },
            ...(request.threadId ? { thread_id: request.threadId } : {}),
          }),
          signal: request.signal,
        });
      } catch (error) {
        request.signal?.throwIfAborted();
        const cause = (error as { cause?: { code?: string; message?: string } }).cause;
        throw new PredictHttpError(
          "server_unreachable",
          0,
          `cannot reach ${url}: ${cause?.code ?? cause?.message ?? (error as Error).message}`,
          {
            cause: error,
          },
        );
      }
      const text = await response.text();
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      if (!response.ok) {
        const problem = (body ?? {}) as { detail?: unknown; code?: unknown };
        const detail =
          typeof problem.detail === "string"
            ? problem.detail
            : problem.detail === undefined
              ? text.slice(0, 200)
              : JSON.stringify(problem.detail);
        throw new PredictHttpError(
          typeof problem.code === "string" ? problem.code : `http_${response.status}`,
          response.status,
          `HTTP ${response.status}: ${detail}`,
        );
      }
      if (typeof body !== "object" || body === null || !("answer" in body)) {
        throw new PredictHttpError("invalid_response", response.status, `${url} answered ${response.status} without a /predict body`);
      }
      return body as PredictBody;
    },
  };
}
