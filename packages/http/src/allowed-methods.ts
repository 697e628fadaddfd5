/**
 * The methods an app serves on a path, read from the app's own router, so that a request for a
 * known path with another method can be answered 405 Method Not Allowed with an `Allow` field
 * (RFC 9110, sections 15.5.6 and 10.2.1) instead of 404.
 */
import type { Env, Hono } from "hono";

/**
 * The methods of the routes of `app` that match `path`, in the order the app first registered
 * them, with `HEAD` after `GET` (Hono answers `HEAD` with the `GET` route). Middleware (`app.use`)
 * is not a route and does not count. Empty when no route matches: the path is unknown.
 *
 * @example
 * ```ts
 * allowedMethods(app, "/predict"); // ["POST"]
 * ```
 */
export function allowedMethods<E extends Env>(app: Hono<E>, path: string): string[] {
  const methods = [...new Set(app.routes.map((route) => route.method))].filter((method) => method !== "ALL");
  const allowed = methods.filter((method) => app.router.match(method, path)[0].some(([[, route]]) => route.method === method));
  const get = allowed.indexOf("GET");
  if (get >= 0 && !allowed.includes("HEAD")) allowed.splice(get + 1, 0, "HEAD");
  return allowed;
}
