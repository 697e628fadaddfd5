import { mintAccessToken, noInformationSentence, type RagService, verifyAccessToken } from "@docqa/core";
import { createTestService } from "@docqa/core/testing";
import { resolveServerConfig, type ServerConfig } from "@docqa/http";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { UiAnswer, UiConfig, UiDocumentList, UiJob, UiStatus } from "./ui-api-types.js";
import { webUiContentSecurityPolicy } from "./ui-assets.js";
import { documentsPageSize } from "./ui-documents.js";
import { webUiRoutes } from "./web-ui-routes.js";

const secret = "web-ui-test-secret-0123456789-0123456789";
const orgId = "org-web-ui";
const ann = { userName: "ann@example.org", roles: [], groups: [] };

let service: RagService;
let annToken: string;
let bobToken: string;

function mounted(server: ServerConfig = resolveServerConfig({ jwt: { secret } }), nodeEnvironment = "test", over = service): Hono {
  const app = new Hono();
  app.route("/ui", webUiRoutes(over, { server, set: "b", nodeEnvironment }));
  return app;
}

beforeAll(async () => {
  service = createTestService();
  await service.upsert({
    orgId,
    principal: ann,
    uploader: ann.userName,
    documents: {
      "vacation-policy.md": {
        title: "Vacation policy",
        content: "New employees receive 20 vacation days per year. Up to five unused days carry over.",
        metadata: { acl: "|user:_all_|", filename: "vacation-policy.md", section: "Leave" },
      },
      "salaries.md": { title: "Salaries", content: "The salary bands are confidential and reviewed every March." },
    },
  });
  const jwt = resolveServerConfig({ jwt: { secret } }).jwt;
  annToken = await mintAccessToken(jwt, { email: ann.userName, orgId });
  bobToken = await mintAccessToken(jwt, { email: "bob@example.org", orgId });
});
afterAll(() => service.close());

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

describe("webUiRoutes", () => {
  it("serves the page under a policy that keeps every request on the server", async () => {
    const response = await mounted().request("/ui");
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Security-Policy")).toBe(webUiContentSecurityPolicy);
    const html = await response.text();
    expect(html).toContain('<script type="module" src="ui/assets/app.js"></script>');
    expect(html).toContain('<link rel="stylesheet" href="ui/assets/app.css">');
    expect(html).not.toMatch(/https?:\/\//);
    expect(webUiContentSecurityPolicy).toContain("default-src 'self'");
  });

  it("answers unknown assets with 404 and the page's error shape", async () => {
    const response = await mounted().request("/ui/assets/other.js");
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: { code: "not_found", message: "no asset other.js in the web page" } });
  });

  it("describes itself without authentication, and refuses its API without a token", async () => {
    const config = (await (await mounted().request("/ui/api/config")).json()) as UiConfig;
    expect(config).toMatchObject({ set: "b", devTokens: false, maxUploadBytes: service.config.ingestion.maxUploadBytes });
    expect(config.fileFormats).toEqual(["pdf", "docx", "txt", "md", "json", "csv"]);
    expect(config.fileExtensions).toEqual([".pdf", ".docx", ".txt", ".text", ".md", ".markdown", ".json", ".ndjson", ".jsonl", ".csv"]);
    const response = await mounted().request("/ui/api/status");
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("missing_token");
  });

  it("mints development tokens only when WEB_UI_DEV_TOKENS is on, JWT_SECRET set, and not in production", async () => {
    const body = JSON.stringify({ email: "dev@example.org", orgId, roles: ["admin"], groups: ["hr"] });
    const post = (app: Hono) => app.request("/ui/api/dev-token", { method: "POST", headers: { "Content-Type": "application/json" }, body });
    expect((await post(mounted())).status).toBe(404);
    const enabled = resolveServerConfig({ jwt: { secret }, webUiDevTokens: true });
    expect((await post(mounted(enabled, "production"))).status).toBe(404);
    expect((await post(mounted(resolveServerConfig({ webUiDevTokens: true })))).status).toBe(404);
    const response = await post(mounted(enabled));
    expect(response.status).toBe(200);
    const { token } = (await response.json()) as { token: string };
    const claims = await verifyAccessToken(token, enabled.jwt);
    expect(claims).toMatchObject({ email: "dev@example.org", org_id: orgId, roles: ["admin"], groups: ["hr"] });
    expect(((await (await mounted(enabled).request("/ui/api/config")).json()) as UiConfig).devTokens).toBe(true);
  });

  it("answers with numbered citations resolved to the passage, title and file name", async () => {
    const response = await mounted().request("/ui/api/ask", {
      method: "POST",
      headers: { ...bearer(annToken), "Content-Type": "application/json" },
      body: JSON.stringify({ question: "How many vacation days do new employees get?" }),
    });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as UiAnswer;
    expect(answer.abstained).toBe(false);
    expect(answer.callout).toContainEqual({ cite: [1] });
    expect(
      answer.callout
        .filter((segment) => "text" in segment)
        .map((segment) => ("text" in segment ? segment.text : ""))
        .join(""),
    ).toMatch(/20 vacation days/);
    expect(answer.sources[0]).toMatchObject({
      number: 1,
      title: "Vacation policy",
      fileName: "vacation-policy.md",
      location: "section Leave",
      docId: "vacation-policy.md",
    });
    expect(answer.sources[0]?.passage).toContain("New employees receive 20 vacation days per year.");
    expect(answer.threadId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("shows an abstention as such", async () => {
    const response = await mounted().request("/ui/api/ask", {
      method: "POST",
      headers: { ...bearer(annToken), "Content-Type": "application/json" },
      body: JSON.stringify({ question: "What is the capital of Mongolia?" }),
    });
    const answer = (await response.json()) as UiAnswer;
    expect(answer).toMatchObject({ abstained: true, sources: [], callout: [{ text: noInformationSentence }] });
  });

  it("rejects an empty question with 400 and the page's error shape", async () => {
    const response = await mounted().request("/ui/api/ask", {
      method: "POST",
      headers: { ...bearer(annToken), "Content-Type": "application/json" },
      body: JSON.stringify({ question: "" }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: { code: "invalid_request", message: "question: type a question" } });
  });

  it("lists only the documents the user may read", async () => {
    const list = async (token: string) =>
      (await (
        await mounted().request("/ui/api/documents?q=salary%20bands%20vacation", { headers: bearer(token) })
      ).json()) as UiDocumentList;
    expect((await list(annToken)).documents.map((document) => document.docId).sort()).toEqual(["salaries.md", "vacation-policy.md"]);
    const bob = await list(bobToken);
    expect(bob).toMatchObject({ listing: "search" });
    expect(bob.documents.map((document) => document.docId)).toEqual(["vacation-policy.md"]);
    expect((await list(bobToken)).documents[0]).toMatchObject({
      title: "Vacation policy",
      fileName: "vacation-policy.md",
      owner: ann.userName,
    });
    // Nothing typed: the documents API lists what the user may read, with every chunk counted.
    const catalogue = (await (await mounted().request("/ui/api/documents?q=", { headers: bearer(bobToken) })).json()) as UiDocumentList;
    expect(catalogue).toMatchObject({ listing: "all" });
    expect(catalogue.documents.map((document) => [document.docId, document.owner])).toEqual([["vacation-policy.md", ann.userName]]);
  });

  it("lists every document a page at a time: the next page follows the documents API's cursor", async () => {
    const pagedOrg = "org-web-ui-pages";
    const count = documentsPageSize + 5;
    const paged = createTestService();
    await paged.upsert({
      orgId: pagedOrg,
      principal: ann,
      uploader: ann.userName,
      documents: Object.fromEntries(
        Array.from({ length: count }, (_, index) => [
          `ann@example.org/memo-${String(index).padStart(3, "0")}.md`,
          { title: `Memo ${index}`, content: `Memo number ${index} about the canteen.` },
        ]),
      ),
    });
    const token = await mintAccessToken(resolveServerConfig({ jwt: { secret } }).jwt, { email: ann.userName, orgId: pagedOrg });
    const app = mounted(resolveServerConfig({ jwt: { secret } }), "test", paged);
    const page = async (query: string) =>
      (await (await app.request(`/ui/api/documents?${query}`, { headers: bearer(token) })).json()) as UiDocumentList;
    const first = await page("q=");
    expect(first.documents).toHaveLength(documentsPageSize);
    expect(first.documents[0]).toMatchObject({ docId: "ann@example.org/memo-000.md", fileName: "memo-000.md", title: "Memo 0" });
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await page(`q=&cursor=${encodeURIComponent(first.nextCursor as string)}`);
    expect(second.documents.map((document) => document.fileName)).toEqual(
      Array.from({ length: 5 }, (_, index) => `memo-${documentsPageSize + index}.md`),
    );
    expect(second.nextCursor).toBeNull();
    // A search has one page.
    expect((await page("q=canteen")).nextCursor).toBeNull();
    await paged.close();
  });

  it("starts an ingestion job per upload and reports it, rejecting a malformed file with its reason", async () => {
    const upload = async (file: File, share: boolean) => {
      const form = new FormData();
      form.append("files", file);
      if (share) form.append("share", "organisation");
      const response = await mounted().request("/ui/api/upload", { method: "POST", headers: bearer(annToken), body: form });
      expect(response.status).toBe(202);
      return (await response.json()) as UiJob;
    };
    const waitFor = async (job: UiJob): Promise<UiJob> => {
      for (;;) {
        const current = (await (await mounted().request(`/ui/api/jobs/${job.jobId}`, { headers: bearer(annToken) })).json()) as UiJob;
        if (current.state !== "queued" && current.state !== "running") return current;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const good = await waitFor(await upload(new File(["# Travel\n\nMeals are reimbursed up to 60 euros per day.\n"], "travel.md"), true));
    expect(good).toMatchObject({ state: "succeeded", files: { ingested: 1, failed: 0 }, documents: 1 });
    const again = await waitFor(await upload(new File(["# Travel\n\nMeals are reimbursed up to 60 euros per day.\n"], "travel.md"), true));
    expect(again.files).toMatchObject({ unchanged: 1 });
    // The upload is the uploader's own document, its file name shown.
    const listed = (await (await mounted().request("/ui/api/documents?q=", { headers: bearer(annToken) })).json()) as UiDocumentList;
    expect(listed.documents.find((document) => document.fileName === "travel.md")).toMatchObject({
      docId: "ann@example.org/travel.md",
      owner: ann.userName,
    });
    const bad = await waitFor(await upload(new File(['{"unterminated": '], "broken.json"), false));
    expect(bad).toMatchObject({ state: "failed", files: { failed: 1 } });
    expect(bad.errors).toEqual([{ file: "broken.json", code: "corrupt_file", message: expect.stringContaining("broken.json") }]);
    const other = await mounted().request(`/ui/api/jobs/${good.jobId}`, {
      headers: bearer(await mintAccessToken(resolveServerConfig({ jwt: { secret } }).jwt, { email: ann.userName, orgId: "another-org" })),
    });
    expect(other.status).toBe(404);
    const unsupported = new FormData();
    unsupported.append("files", new File(["MZ"], "tool.exe"));
    const refused = await mounted().request("/ui/api/upload", { method: "POST", headers: bearer(annToken), body: unsupported });
    expect(refused.status).toBe(415);
  });

  it("reports the service's status and the counts of the user's organisation", async () => {
    const response = await mounted().request("/ui/api/status", { headers: bearer(bobToken) });
    const status = (await response.json()) as UiStatus;
    expect(status).toMatchObject({
      set: "b",
      health: {
        status: "ok",
        answerer: "extractive",
        stores: { vector: "embedded", keyword: "embedded" },
        embeddings: { status: "ready" },
      },
      statistics: { openOrganisationStores: 1, organisation: { orgId } },
    });
    expect(status.statistics.organisation?.chunks).toBeGreaterThanOrEqual(2);
    const me = await (await mounted().request("/ui/api/me", { headers: bearer(bobToken) })).json();
    expect(me).toEqual({ email: "bob@example.org", orgId, roles: ["user"], groups: [] });
  });
});
