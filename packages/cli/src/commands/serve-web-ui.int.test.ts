/**
 * The web page in a browser, as a user meets it: the built `docqa serve` serves the example
 * corpus (`examples/corpus`, ingested with `docqa ingest`), and Debian's Chromium, headless,
 * driven by playwright-core, signs in, asks with citations, follows up, meets an abstention,
 * uploads one good and one malformed file, finds documents, and reads the status; a second user
 * does not see the first user's private document. Every request that would leave loopback is
 * blocked and recorded: the test fails if there is any.
 *
 * Screenshots of each screen go to `packages/cli/screenshots/` (git-ignored), and to
 * `docs/images/web-ui/` (shown in the README and docs/web-ui.md) with
 * `DOCQA_UPDATE_SCREENSHOTS=true`.
 *
 * Needs `npm run build` and Chromium at `/usr/bin/chromium` (or `DOCQA_TEST_CHROMIUM`): skipped
 * with a message without them, fails in CI (`CI=true`).
 */
import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { mintAccessToken } from "@docqa/core";
import { isContinuousIntegration } from "@docqa/core/testing";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BuiltServe, docqaBuilt, localModel, repositoryRoot, startBuiltServe } from "../testing/start-built-serve.js";

const executablePath = process.env.DOCQA_TEST_CHROMIUM ?? "/usr/bin/chromium";
const chromiumPresent = existsSync(executablePath);
const ready = docqaBuilt && chromiumPresent;
if (!ready && !isContinuousIntegration()) {
  console.warn(
    `web page browser test skipped: ${docqaBuilt ? "" : "run npm run build; "}${chromiumPresent ? "" : `no Chromium at ${executablePath}`}`,
  );
}
const screenshots = fileURLToPath(new URL("../../screenshots/", import.meta.url));
const documented = join(repositoryRoot, "docs", "images", "web-ui");
const secret = "web-ui-browser-secret-0123456789-0123456789";
const salaryBands =
  "# Salary bands\n\nSalary band E3 for engineers ranges from 62,000 to 78,000 euros a year. The bands are reviewed every March.\n";

let served: BuiltServe | undefined;
let browser: Browser | undefined;

beforeAll(async () => {
  if (!ready) return;
  served = await startBuiltServe({ JWT_SECRET: secret, WEB_UI_DEV_TOKENS: "true", NODE_ENV: "development" });
  browser = await chromium.launch({
    executablePath,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
  mkdirSync(screenshots, { recursive: true });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await served?.stop();
});

interface Visit {
  context: BrowserContext;
  page: Page;
  /** Requests that tried to leave loopback (blocked). */
  leaked: string[];
  /** Script errors and failed requests. */
  errors: string[];
}

/** A browser context that blocks and records every request to a host other than 127.0.0.1. */
async function visit(): Promise<Visit> {
  const context = await (browser as Browser).newContext({ viewport: { width: 1200, height: 900 } });
  const leaked: string[] = [];
  await context.route("**/*", async (route) => {
    const url = new URL(route.request().url());
    if (url.protocol !== "data:" && url.hostname !== "127.0.0.1") {
      leaked.push(url.href);
      await route.abort("blockedbyclient");
      return;
    }
    await route.continue();
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("requestfailed", (request) => errors.push(`${request.url()}: ${request.failure()?.errorText ?? ""}`));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  return { context, page, leaked, errors };
}

async function screenshot(page: Page, name: string): Promise<void> {
  const path = join(screenshots, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  if (process.env.DOCQA_UPDATE_SCREENSHOTS === "true") {
    mkdirSync(documented, { recursive: true });
    copyFileSync(path, join(documented, `${name}.png`));
  }
}

async function ask(page: Page, question: string): Promise<ReturnType<Page["locator"]>> {
  const before = await page.getByTestId("answer").count();
  await page.getByTestId("question-input").fill(question);
  await page.getByTestId("ask").click();
  const answer = page.getByTestId("answer").nth(before);
  await answer.waitFor({ timeout: 60_000 });
  return answer;
}

const token = (email: string) => mintAccessToken({ secret, algorithm: "HS256", issuer: "oauth-app" }, { email, orgId: "acme" });

describe.skipIf(!ready && !isContinuousIntegration())("the web page in Chromium, over the example corpus", () => {
  let ann: Visit;

  it("signs in with a pasted access token", async () => {
    expect(ready, "needs npm run build and Chromium").toBe(true);
    ann = await visit();
    await ann.page.goto(`${served?.urls.b}/ui`);
    await ann.page.getByTestId("token-input").waitFor();
    await screenshot(ann.page, "sign-in");
    await ann.page.getByTestId("token-input").fill(await token("ann@acme.example"));
    await ann.page.getByTestId("sign-in").click();
    await expect.poll(() => ann.page.getByTestId("who").textContent()).toContain("ann@acme.example");
  }, 60_000);

  it("answers with citations that open the cited passage, title and file name, and follows up in the thread", async () => {
    const first = await ask(ann.page, "How many vacation days do new employees get?");
    expect(await first.getAttribute("data-abstained")).toBe("false");
    expect(await first.getByTestId("callout").textContent()).toContain("20 vacation days");
    await first.getByTestId("citation").first().click();
    const source = first.getByTestId("source").first();
    await expect.poll(() => source.getAttribute("open")).toBe("");
    expect(await source.getByTestId("source-file").textContent()).toContain("vacation-policy.md");
    expect(await source.locator(".title").textContent()).toBe("Vacation and Leave Policy");
    expect(await source.getByTestId("source-passage").textContent()).toContain("New employees receive");
    expect(await source.getByTestId("source-passage").isVisible()).toBe(true);
    // The sentence the answer quotes is highlighted in the opened source.
    expect(await source.getByTestId("cited-sentence").allTextContents()).toEqual([
      expect.stringMatching(/^New employees receive\s+20 vacation days/),
    ]);
    // Every source of the answer has its own label, even two of one file.
    const labels = await first.getByTestId("source-file").allTextContents();
    expect(new Set(labels).size).toBe(labels.length);
    await screenshot(ann.page, "ask");

    const followUp = await ask(ann.page, "And how many unused days can be carried over?");
    expect(await ann.page.getByTestId("turn").count()).toBe(2);
    expect(await followUp.getByTestId("callout").textContent()).toMatch(/five unused vacation days/i);
    expect(await followUp.getByTestId("source-file").first().textContent()).toContain("vacation-policy.md");
    await screenshot(ann.page, "follow-up");
  }, 120_000);

  it("shows an abstention as such", async () => {
    await ann.page.getByTestId("new-thread").click();
    const answer = await ask(ann.page, "What is the capital of Mongolia?");
    expect(await answer.getAttribute("data-abstained")).toBe("true");
    expect(await answer.locator(".badge").textContent()).toBe("Not in your documents");
    expect(await answer.getByTestId("source").count()).toBe(0);
    await screenshot(ann.page, "abstention");
  }, 60_000);

  it("uploads a good and a malformed file with progress, and shows each file's result", async () => {
    await ann.page.getByTestId("tab-upload").click();
    await ann.page.getByTestId("file-input").setInputFiles([
      { name: "salary-bands.md", mimeType: "text/markdown", buffer: Buffer.from(salaryBands) },
      { name: "broken.json", mimeType: "application/json", buffer: Buffer.from('{"title": "unterminated') },
    ]);
    await ann.page.getByTestId("upload").click();
    const row = (file: string) => ann.page.locator(`[data-testid="upload-row"][data-file="${file}"]`);
    await expect.poll(() => row("salary-bands.md").getAttribute("data-outcome"), { timeout: 60_000 }).toBe("ingested");
    await expect.poll(() => row("broken.json").getAttribute("data-outcome"), { timeout: 60_000 }).toBe("rejected");
    expect(await row("salary-bands.md").locator("progress").getAttribute("value")).toBe("1");
    expect(await row("salary-bands.md").locator(".outcome").textContent()).toMatch(/ingested 1 document\(s\), \d+ chunk\(s\)/);
    expect(await row("broken.json").locator(".outcome").textContent()).toMatch(/rejected .*\(corrupt_file\)/);
    await screenshot(ann.page, "upload");
  }, 120_000);

  it("lists the documents the user may read, including her private upload", async () => {
    const listed = () => ann.page.getByTestId("document-row").evaluateAll((rows) => rows.map((row) => row.getAttribute("data-doc-id")));
    await ann.page.getByTestId("tab-documents").click();
    // Nothing typed: the documents API's catalogue, her upload included.
    await ann.page.getByTestId("documents").waitFor();
    // Her upload's id is her own (`<user>/<file name>`); the file name is shown.
    const upload = "ann@acme.example/salary-bands.md";
    expect(await listed()).toEqual(expect.arrayContaining([upload, "vacation-policy.md"]));
    expect(await ann.page.locator(`[data-testid="document-row"][data-doc-id="${upload}"] td`).nth(1).textContent()).toBe("salary-bands.md");
    // Words typed: the documents holding the best chunks for them.
    await ann.page.getByTestId("documents-query").fill("salary bands vacation");
    await ann.page.getByTestId("documents-search").click();
    await expect.poll(() => ann.page.getByTestId("documents-count").textContent()).toContain("matching");
    expect(await listed()).toEqual(expect.arrayContaining([upload, "vacation-policy.md"]));
    await screenshot(ann.page, "documents");
    // Her answers cite it: the question the other user asks below is answered from it.
    await ann.page.getByTestId("tab-ask").click();
    const answer = await ask(ann.page, "What is the salary band E3 for engineers?");
    expect(await answer.getByTestId("source-file").allTextContents()).toContain("salary-bands.md, section Salary bands");
    expect(await answer.getByTestId("callout").textContent()).toContain("62,000");
  }, 60_000);

  it("shows the backends, models and the organisation's counts", async () => {
    await ann.page.getByTestId("tab-status").click();
    await ann.page.getByTestId("status").waitFor();
    const rows = await ann.page
      .getByTestId("status-row")
      .evaluateAll((elements) =>
        elements.map((element) => [element.getAttribute("data-name"), element.querySelector(".state")?.textContent]),
      );
    expect(rows).toEqual([
      ["Vector index", localModel ? "ready" : "off"],
      ["Keyword index", "ready"],
      ["Embedding model", localModel ? "ready" : "off"],
      ["Answerer", "ready"],
      ["Chat model", "off"],
      ["Reranker", "off"],
    ]);
    expect(Number(await ann.page.getByTestId("status-chunks").textContent())).toBeGreaterThan(30);
    // The chat model row says what answers are made with when none is configured.
    expect(await ann.page.locator('[data-testid="status-row"][data-name="Chat model"] td').first().textContent()).toMatch(
      /^none: no chat model configured, so answers are extractive/,
    );
    await screenshot(ann.page, "status");
    expect(ann.leaked).toEqual([]);
    expect(ann.errors).toEqual([]);
    await ann.context.close();
  }, 60_000);

  it("lists more than a page of documents: 'Show more documents' follows the documents API's cursor", async () => {
    // 205 documents of their own organisation, written through set A's /upsert.
    const paging = await mintAccessToken(
      { secret, algorithm: "HS256", issuer: "oauth-app" },
      { email: "pat@paging.example", orgId: "paging" },
    );
    const documents = Object.fromEntries(
      Array.from({ length: 205 }, (_, index) => [
        `memo-${String(index).padStart(3, "0")}.md`,
        { title: `Memo ${index}`, content: `Memo ${index}.` },
      ]),
    );
    const upserted = await fetch(`${served?.urls.a}/upsert`, {
      method: "POST",
      headers: { Authorization: `Bearer ${paging}`, "Content-Type": "application/json" },
      body: JSON.stringify({ user_email: "pat@paging.example", documents }),
    });
    expect(upserted.status).toBe(200);
    const pat = await visit();
    try {
      await pat.page.goto(`${served?.urls.b}/ui`);
      await pat.page.getByTestId("token-input").fill(paging);
      await pat.page.getByTestId("sign-in").click();
      await pat.page.getByTestId("tab-documents").click();
      await pat.page.getByTestId("documents").waitFor();
      await expect.poll(() => pat.page.getByTestId("document-row").count()).toBe(200);
      expect(await pat.page.getByTestId("documents-count").textContent()).toBe("200+ document(s)");
      await pat.page.getByTestId("documents-more").click();
      await expect.poll(() => pat.page.getByTestId("document-row").count()).toBe(205);
      expect(await pat.page.getByTestId("documents-more").count()).toBe(0);
      expect(await pat.page.getByTestId("document-row").last().getAttribute("data-doc-id")).toBe("memo-204.md");
      expect(pat.leaked).toEqual([]);
      expect(pat.errors).toEqual([]);
    } finally {
      await pat.context.close();
    }
  }, 120_000);

  it("hides a document from a user who may not read it, in the documents list and in answers", async () => {
    const bob = await visit();
    try {
      await bob.page.goto(`${served?.urls.a}/ui`);
      await bob.page.getByTestId("dev-email").fill("bob@acme.example");
      await bob.page.getByTestId("dev-org").fill("acme");
      await bob.page.getByTestId("dev-sign-in").click();
      await expect.poll(() => bob.page.getByTestId("who").textContent()).toContain("bob@acme.example");
      const answer = await ask(bob.page, "What is the salary band E3 for engineers?");
      const files = await answer.getByTestId("source-file").allTextContents();
      expect(files.filter((file) => file.includes("salary-bands.md"))).toEqual([]);
      expect(await answer.textContent()).not.toContain("62,000");
      await bob.page.getByTestId("tab-documents").click();
      await bob.page.getByTestId("documents-query").fill("salary bands vacation");
      await bob.page.getByTestId("documents-search").click();
      await bob.page.getByTestId("documents").waitFor();
      const listed = await bob.page.getByTestId("document-row").evaluateAll((rows) => rows.map((row) => row.getAttribute("data-doc-id")));
      expect(listed).toContain("vacation-policy.md");
      expect(listed).not.toContain("ann@acme.example/salary-bands.md");
      expect(bob.leaked).toEqual([]);
      expect(bob.errors).toEqual([]);
    } finally {
      await bob.context.close();
    }
  }, 120_000);
});
