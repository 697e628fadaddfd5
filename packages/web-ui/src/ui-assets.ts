/**
 * The page and its assets. The page is a static shell; the script (`app.js`: the Preact
 * application, bundled at build time by tsup into `dist/browser/`) and the style sheet
 * (`app.css`) are served by the same server, under a Content-Security-Policy that lets the
 * browser fetch nothing from anywhere else.
 */
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { DocqaError } from "@docqa/core";

/**
 * The page's policy: everything from the page's origin only, no inline script or style element,
 * no framing, no `<base>` rewriting, forms posting only to the origin.
 */
export const webUiContentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "object-src 'none'",
].join("; ");

/** The browser bundle's folder: `dist/browser/` of this package (the same from `src/` under tests and from `dist/`). */
const bundleDirectory = new URL("../dist/browser/", import.meta.url);

/** The assets the page loads, by the name in its URL. */
export const webUiAssets: Readonly<Record<string, { file: string; type: string }>> = {
  "app.js": { file: "app.js", type: "text/javascript; charset=utf-8" },
  "app.js.map": { file: "app.js.map", type: "application/json; charset=utf-8" },
  "app.css": { file: "app.css", type: "text/css; charset=utf-8" },
};

const cache = new Map<string, Promise<Buffer>>();

/**
 * The bytes of an asset of {@link webUiAssets}.
 *
 * @throws {DocqaError} `not_found` when the name is unknown; `internal_error` when the bundle was
 *   not built (`npm run build`).
 */
export async function readWebUiAsset(name: string): Promise<{ bytes: Buffer; type: string }> {
  const asset = webUiAssets[name];
  if (!asset) throw new DocqaError("not_found", `no asset ${name} in the web page`, { component: "web-ui" });
  const path = fileURLToPath(new URL(asset.file, bundleDirectory));
  let content = cache.get(path);
  if (!content) {
    content = readFile(path);
    cache.set(path, content);
    content.catch(() => cache.delete(path));
  }
  try {
    return { bytes: await content, type: asset.type };
  } catch (error) {
    throw new DocqaError("internal_error", `the web page's ${name} is missing at ${path}: build it with npm run build`, {
      component: "web-ui",
      cause: error,
    });
  }
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/**
 * The page. Its assets are referred to relative to the page's own path (`ui/assets/...` from
 * `/ui`), so the page also works when the app is mounted under a prefix.
 *
 * @param mount - the last path segment of the page, for example `ui`.
 */
export function webUiPage(title: string, mount: string): string {
  const base = escapeHtml(mount);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${base}/assets/app.css">
<script type="module" src="${base}/assets/app.js"></script>
</head>
<body>
<div id="app"><p class="loading">Loading…</p></div>
<noscript>This page needs JavaScript. The same service answers over HTTP: see /docs.</noscript>
</body>
</html>
`;
}
