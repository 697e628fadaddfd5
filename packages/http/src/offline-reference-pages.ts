/**
 * A Content-Security-Policy for the reference pages (`/docs`, `/redoc`) that keeps every
 * request on the serving origin. The pages' own scripts and styles are served locally (see
 * `mountReferencePages`), but ReDoc 2.x renders a sidebar logo from `https://cdn.redoc.ly`
 * unconditionally; with this policy the browser refuses that request before it leaves, so the
 * pages work air-gapped without even a failed DNS lookup.
 */
import { createMiddleware } from "hono/factory";

/**
 * The policy: scripts, styles, fonts, images and connections from the page's origin only
 * (`'unsafe-inline'` for Swagger UI's start-up script and ReDoc's generated styles; `data:` for
 * Swagger UI's inline SVG icons; `blob:` workers for ReDoc's search index).
 */
export const referencePagesContentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self' 'unsafe-inline'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "frame-ancestors 'self'",
].join("; ");

/**
 * Middleware adding {@link referencePagesContentSecurityPolicy} to the responses it wraps. Mount
 * it on the page routes before `mountReferencePages`:
 *
 * @example
 * ```ts
 * app.use("/docs", offlineReferencePages());
 * app.use("/redoc", offlineReferencePages());
 * mountReferencePages(app, { title, openApiPath: "/openapi.json" });
 * ```
 */
export function offlineReferencePages() {
  return createMiddleware(async (c, next) => {
    await next();
    c.res.headers.set("Content-Security-Policy", referencePagesContentSecurityPolicy);
  });
}
