/**
 * The page's client of its JSON API (`<page>/api/...`): every call sends the access token, and a
 * non-2xx answer becomes an {@link ApiError} carrying the service's stable code and message.
 * Uploads go through `XMLHttpRequest`, the one browser API that reports upload progress.
 */
import type { UiAnswer, UiConfig, UiDocumentList, UiError, UiJob, UiStatus, UiUser } from "../src/ui-api-types.ts";

/** A failed call: the HTTP status and the service's error code and message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The API's base path: the page's own path (`/ui`, or `/prefix/ui` when mounted under a prefix). */
const base = `${location.pathname.replace(/\/+$/, "")}/api`;

function failure(status: number, body: unknown): ApiError {
  const error = (body as Partial<UiError> | undefined)?.error;
  return new ApiError(status, error?.code ?? "http_error", error?.message ?? `the server answered ${status}`);
}

async function call<T>(path: string, token: string | undefined, init: RequestInit = {}): Promise<T> {
  const headers = new Headers(init.headers);
  if (token) headers.set("Authorization", `Bearer ${token}`);
  if (init.body && typeof init.body === "string") headers.set("Content-Type", "application/json");
  const response = await fetch(`${base}${path}`, { ...init, headers });
  const body: unknown = await response.json().catch(() => undefined);
  if (!response.ok) throw failure(response.status, body);
  return body as T;
}

/** Progress of an upload: bytes sent of the request's total. */
export type UploadProgress = (sent: number, total: number) => void;

/** The calls the page makes, for one access token (none before sign-in). */
export function apiClient(token?: string) {
  return {
    config: () => call<UiConfig>("/config", undefined),
    mintDevelopmentToken: (request: { email: string; orgId: string; roles: string[]; groups: string[] }) =>
      call<{ token: string }>("/dev-token", undefined, { method: "POST", body: JSON.stringify(request) }),
    me: () => call<UiUser>("/me", token),
    ask: (question: string, threadId: string | undefined) =>
      call<UiAnswer>("/ask", token, { method: "POST", body: JSON.stringify({ question, ...(threadId ? { threadId } : {}) }) }),
    job: (jobId: string) => call<UiJob>(`/jobs/${encodeURIComponent(jobId)}`, token),
    documents: (query: string, cursor?: string) =>
      call<UiDocumentList>(`/documents?q=${encodeURIComponent(query)}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, token),
    status: () => call<UiStatus>("/status", token),
    /** Uploads one file and starts its ingestion job; resolves with the queued job. */
    upload(file: File, share: boolean, onProgress: UploadProgress): Promise<UiJob> {
      return new Promise((resolve, reject) => {
        const request = new XMLHttpRequest();
        request.open("POST", `${base}/upload`);
        if (token) request.setRequestHeader("Authorization", `Bearer ${token}`);
        request.responseType = "json";
        request.upload.onprogress = (event) => onProgress(event.loaded, event.lengthComputable ? event.total : file.size);
        request.onload = () => {
          if (request.status >= 200 && request.status < 300) resolve(request.response as UiJob);
          else reject(failure(request.status, request.response));
        };
        request.onerror = () => reject(new ApiError(0, "network_error", "the upload did not reach the server"));
        const form = new FormData();
        form.append("files", file, file.name);
        if (share) form.append("share", "organisation");
        request.send(form);
      });
    },
  };
}

/** The client type. */
export type ApiClient = ReturnType<typeof apiClient>;

/** A readable message of any error. */
export function messageOf(error: unknown): string {
  if (error instanceof ApiError) return `${error.message} (${error.code})`;
  return error instanceof Error ? error.message : String(error);
}
