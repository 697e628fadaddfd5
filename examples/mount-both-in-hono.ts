/**
 * Mounting both endpoint sets into your own Hono app, beside your own routes, over one service:
 * set B (`/health`, `/api/chat`, `/api/search`, `/api/ingest`) at the root with its reference
 * pages (`/docs`, `/redoc`, `/openapi.json`), and set A (`/healthz`, `/query`, `/predict`,
 * `/upsert`) under `/a`. Each set keeps its own error shape and authentication; set B's routes are
 * rate limited per user (100 per minute, 1,000 per hour).
 *
 * Run after `npm run build`: `JWT_SECRET=dev node examples/mount-both-in-hono.ts`, then
 * `npx docqa token --email you@example.org --org my-org` for a bearer token.
 */
import { chatRoutes } from "@docqa/chat-api";
import { createRagService, loadConfig } from "@docqa/core";
import { predictRoutes } from "@docqa/predict-api";
import { serve } from "@hono/node-server";
import { Hono } from "hono";

const service = createRagService({ config: loadConfig() });
await service.ready();

const app = new Hono();
app.get("/", (c) => c.text("my application"));
// Set B owns the root-level reference pages; its own paths already start with /api.
app.route("/", chatRoutes(service, { rateLimit: { perMinute: 100, perHour: 1000 } }));
// Set A under a prefix. Its reference pages link to root paths (/openapi.json, /docs/assets/),
// so they are turned off here; serve set A on its own port (`docqa serve`) to browse them.
app.route("/a", predictRoutes(service, { referencePages: false }));
// Paths neither set knows are answered by this app's notFound (Hono uses only the outermost one).
app.notFound((c) => c.json({ error: { code: "not_found", message: `no route ${c.req.method} ${c.req.path}` } }, 404));

serve({ fetch: app.fetch, port: 3000 }, () => {
  console.log("set B: POST http://localhost:3000/api/chat, reference at http://localhost:3000/docs");
  console.log("set A: POST http://localhost:3000/a/predict");
});
