/**
 * Mounting endpoint set A into your own Hono app, beside your own routes.
 * Run after `npm run build`: `JWT_SECRET=dev node examples/mount-in-hono.ts`.
 */
import { createRagService, loadConfig } from "@docqa/core";
import { predictRoutes } from "@docqa/predict-api";
import { serve } from "@hono/node-server";
import { Hono } from "hono";

const service = createRagService({ config: loadConfig() });
await service.ready();

const app = new Hono();
app.get("/", (c) => c.text("my application"));
app.route("/qa", predictRoutes(service));

serve({ fetch: app.fetch, port: 3000 }, () => console.log("POST http://localhost:3000/qa/predict"));
