/**
 * Browser test of the reference pages of both endpoint sets: Debian's Chromium, headless, driven
 * by playwright-core, loads `/docs` (Swagger UI) and `/redoc` (ReDoc) from servers on loopback,
 * finds every endpoint, runs "Try it out" on the health route, and saves screenshots under
 * `packages/chat-api/screenshots/` (git-ignored). Every request that would leave loopback is
 * blocked and recorded; the test fails if there is any, so the pages work air-gapped.
 *
 * Needs Chromium at `/usr/bin/chromium` (`apt-get install -y chromium`, or set
 * `DOCQA_TEST_CHROMIUM`): skipped with a message without it, fails in CI (`CI=true`).
 */
import { existsSync, mkdirSync, mkdtempSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createInMemoryJobStore, createRagService, type RagService } from "@docqa/core";
import { isContinuousIntegration } from "@docqa/core/testing";
import { predictRoutes } from "@docqa/predict-api";
import { type ServerType, serve } from "@hono/node-server";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chatRoutes } from "./chat-routes.js";

const executablePath = process.env.DOCQA_TEST_CHROMIUM ?? "/usr/bin/chromium";
const chromiumPresent = existsSync(executablePath);
if (!chromiumPresent && !isContinuousIntegration()) {
  console.warn(
    `reference-pages browser test skipped: no Chromium at ${executablePath} (apt-get install -y chromium, or set DOCQA_TEST_CHROMIUM)`,
  );
}
const screenshots = fileURLToPath(new URL("../screenshots/", import.meta.url));

/** The endpoint sets: their app, every documented operation, and the health route to try. */
const sets = [
  {
    name: "set-a",
    // As `docqa serve` serves set A: the app itself, its pages under the offline Content-Security-Policy.
    build: (service: RagService) => predictRoutes(service),
    operations: [
      ["GET", "/healthz"],
      ["GET", "/readyz"],
      ["POST", "/query"],
      ["POST", "/predict"],
      ["POST", "/upsert"],
      ["GET", "/documents"],
      ["GET", "/documents/{doc_id}"],
      ["DELETE", "/documents/{doc_id}"],
    ],
    summaries: [
      "Liveness check",
      "Readiness check",
      "Intent detection",
      "Question answering",
      "Insert or update documents",
      "List documents",
      "Show a document",
      "Delete a document",
    ],
    health: "/healthz",
    healthBody: '"status": "ok"',
  },
  {
    name: "set-b",
    build: (service: RagService) => chatRoutes(service),
    operations: [
      ["GET", "/health"],
      ["GET", "/readyz"],
      ["POST", "/api/chat"],
      ["POST", "/api/search"],
      ["POST", "/api/ingest"],
      ["GET", "/api/ingest/{jobId}"],
      ["DELETE", "/api/memory"],
      ["GET", "/api/reindex"],
      ["GET", "/api/documents"],
      ["GET", "/api/documents/{id}"],
      ["DELETE", "/api/documents/{id}"],
    ],
    summaries: [
      "Health check",
      "Readiness check",
      "Chat message",
      "Semantic search",
      "Document ingestion",
      "Ingestion job state",
      "Delete my conversation memory",
      "Vector index and reindex job of the organisation",
      "List documents",
      "Show a document",
      "Delete a document",
    ],
    health: "/health",
    healthBody: '"version": "0.1.0"',
  },
] as const;

let browser: Browser | undefined;
const servers: ServerType[] = [];
const services: RagService[] = [];
const urls = new Map<string, string>();

beforeAll(async () => {
  if (!chromiumPresent) return;
  for (const set of sets) {
    const service = createRagService({
      config: {
        stores: { dataDir: mkdtempSync(join(tmpdir(), "docqa-reference-pages-")) },
        logging: { level: "silent" },
      },
      embeddings: null,
      jobStore: createInMemoryJobStore(),
    });
    services.push(service);
    const server = serve({ fetch: set.build(service).fetch, port: 0, hostname: "127.0.0.1" });
    servers.push(server);
    await new Promise((resolve) => server.once("listening", resolve));
    urls.set(set.name, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  }
  browser = await chromium.launch({
    executablePath,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
  mkdirSync(screenshots, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  await Promise.all(services.map((service) => service.close()));
});

/** A browser context that blocks every request to a host other than 127.0.0.1 and records it. */
async function loopbackOnly(): Promise<{ context: BrowserContext; page: Page; leaked: string[]; errors: string[] }> {
  const context = await (browser as Browser).newContext({ viewport: { width: 1280, height: 1600 } });
  const leaked: string[] = [];
  await context.route("**/*", async (route) => {
    const url = new URL(route.request().url());
    if (
      (url.protocol === "http:" || url.protocol === "https:" || url.protocol === "ws:" || url.protocol === "wss:") &&
      url.hostname !== "127.0.0.1"
    ) {
      leaked.push(url.href);
      await route.abort("blockedbyclient");
      return;
    }
    await route.continue();
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("requestfailed", (request) => {
    // Requests the page's Content-Security-Policy refuses never leave the browser (ReDoc's logo).
    const reason = request.failure()?.errorText ?? "";
    if (!/csp/i.test(reason)) errors.push(`${request.url()}: ${reason}`);
  });
  return { context, page, leaked, errors };
}

describe.skipIf(!chromiumPresent && !isContinuousIntegration())("reference pages in Chromium, offline", () => {
  for (const set of sets) {
    it(`${set.name}: /docs lists every endpoint and "Try it out" on ${set.health} answers 200`, async () => {
      expect(chromiumPresent, `Chromium is missing at ${executablePath}`).toBe(true);
      const { context, page, leaked, errors } = await loopbackOnly();
      try {
        await page.goto(`${urls.get(set.name)}/docs`);
        await page.locator(".opblock").first().waitFor({ timeout: 30_000 });
        const listed = await page
          .locator(".opblock")
          .evaluateAll((blocks) =>
            blocks.map((block) => [
              block.querySelector(".opblock-summary-method")?.textContent?.trim() ?? "",
              block.querySelector(".opblock-summary-path")?.getAttribute("data-path") ?? "",
            ]),
          );
        expect(listed.sort()).toEqual(
          sets
            .find((candidate) => candidate.name === set.name)
            ?.operations.map((operation) => [...operation])
            .sort(),
        );

        const health = page.locator(`.opblock-get:has(.opblock-summary-path[data-path="${set.health}"])`);
        await health.locator(".opblock-summary").click();
        await health.getByRole("button", { name: "Try it out" }).click();
        await health.getByRole("button", { name: "Execute" }).click();
        const liveResponse = health.locator(".live-responses-table tbody .response-col_status").first();
        await liveResponse.waitFor({ timeout: 15_000 });
        expect((await liveResponse.textContent())?.trim()).toBe("200");
        expect(await health.locator(".live-responses-table tbody .response-col_description").first().textContent()).toContain(
          set.healthBody,
        );
        await page.screenshot({ path: join(screenshots, `${set.name}-docs.png`), fullPage: true });
        expect(leaked).toEqual([]);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    }, 60_000);

    it(`${set.name}: /redoc renders every operation`, async () => {
      expect(chromiumPresent, `Chromium is missing at ${executablePath}`).toBe(true);
      const { context, page, leaked, errors } = await loopbackOnly();
      try {
        await page.goto(`${urls.get(set.name)}/redoc`);
        await page.locator("[data-section-id^='/paths/']").first().waitFor({ timeout: 30_000 });
        const headings = (await page.locator("[data-section-id^='/paths/'] h2").allTextContents()).map((heading) => heading.trim());
        expect(headings.sort()).toEqual([...set.summaries].sort());
        const text = await page.locator("body").textContent();
        for (const [, path] of set.operations) expect(text).toContain(path);
        await page.screenshot({ path: join(screenshots, `${set.name}-redoc.png`), fullPage: true });
        expect(leaked).toEqual([]);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    }, 60_000);
  }
});
