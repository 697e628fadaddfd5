/**
 * FastAPI compatibility: FastAPI parses a request body as JSON when no `Content-Type` is sent,
 * and existing clients rely on it (for example Python's `requests.post(url, data=json.dumps(body))`,
 * or `fetch` with a string body, which sends `text/plain`). This middleware treats a body
 * without `Content-Type`, or with `text/plain`, as `application/json`; other media types are
 * left alone (and rejected with 415 by JSON routes).
 */
import { createMiddleware } from "hono/factory";

/** Middleware reading a request body without `Content-Type`, or with `text/plain`, as JSON. */
export function defaultJsonContentType() {
  return createMiddleware(async (c, next) => {
    const method = c.req.method;
    const contentType = c.req.header("Content-Type")?.split(";")[0]?.trim().toLowerCase();
    if ((method === "POST" || method === "PUT" || method === "PATCH") && (!contentType || contentType === "text/plain")) {
      const headers = new Headers(c.req.raw.headers);
      headers.set("Content-Type", "application/json");
      c.req.raw = new Request(c.req.raw, { headers });
    }
    await next();
  });
}
