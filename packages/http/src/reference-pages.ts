/**
 * Interactive reference pages, `/docs` (Swagger UI) and `/redoc` (ReDoc), rendered from the
 * app's OpenAPI document. Their scripts and styles are served from the installed
 * `swagger-ui-dist` and `redoc` packages, never from a CDN, so the pages work on an air-gapped
 * network.
 */

import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { Hono } from "hono";
import { referencePagesContentSecurityPolicy } from "./offline-reference-pages.js";

/** Settings of {@link mountReferencePages}. */
export interface ReferencePagesSettings {
  /** Page title. */
  title: string;
  /** Path of the OpenAPI JSON document, for example `/openapi.json`. */
  openApiPath: string;
}

const require = createRequire(import.meta.url);

const assets: Record<string, { file: () => string; type: string }> = {
  "swagger-ui.css": { file: () => join(packageDirectory("swagger-ui-dist"), "swagger-ui.css"), type: "text/css; charset=utf-8" },
  "swagger-ui-bundle.js": {
    file: () => join(packageDirectory("swagger-ui-dist"), "swagger-ui-bundle.js"),
    type: "text/javascript; charset=utf-8",
  },
  "redoc.standalone.js": {
    file: () => join(packageDirectory("redoc"), "bundles", "redoc.standalone.js"),
    type: "text/javascript; charset=utf-8",
  },
};

function packageDirectory(name: string): string {
  return dirname(require.resolve(`${name}/package.json`));
}

const cache = new Map<string, Promise<Buffer>>();

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/**
 * Adds `GET /docs`, `GET /redoc` and their assets under `/docs/assets/` to `app`. The pages
 * refer to their assets by relative URLs, so they also work when `app` is mounted under a prefix,
 * and carry a Content-Security-Policy that keeps every request on the server.
 */
export function mountReferencePages(app: Hono, settings: ReferencePagesSettings): void {
  // The pages load nothing from outside the server (ReDoc's sidebar logo would come from a CDN).
  const offlineHeaders = { "Content-Security-Policy": referencePagesContentSecurityPolicy };
  const title = escapeHtml(settings.title);
  const specUrl = JSON.stringify(settings.openApiPath);
  app.get("/docs/assets/:name", async (c) => {
    const asset = assets[c.req.param("name")];
    if (!asset) return c.notFound();
    const file = asset.file();
    let content = cache.get(file);
    if (!content) cache.set(file, (content = readFile(file)));
    return c.body(new Uint8Array(await content), 200, { "Content-Type": asset.type, "Cache-Control": "public, max-age=86400" });
  });
  app.get("/docs", (c) =>
    c.html(
      `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title><link rel="stylesheet" href="docs/assets/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="docs/assets/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: ${specUrl}, dom_id: "#swagger-ui", deepLinking: true, tryItOutEnabled: false });</script>
</body></html>`,
      200,
      offlineHeaders,
    ),
  );
  app.get("/redoc", (c) =>
    c.html(
      `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title><style>body { margin: 0; padding: 0; }</style></head>
<body><redoc spec-url=${specUrl}></redoc>
<script src="docs/assets/redoc.standalone.js"></script>
</body></html>`,
      200,
      offlineHeaders,
    ),
  );
}
