/**
 * End-to-end tests of `docqa serve` (set A, BM25 only): documents survive a restart with the same
 * DATA_DIR, PERF lines, and kill -9 during large upserts leaves each document wholly old or wholly
 * new.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { bm25Only, built, runDocqaOk, type ServedDocqa, startDocqaServe } from "./testing/run-docqa.js";

interface Asked {
  answer: { callout_answer: string };
  sources: Record<string, { metadata: { doc_id: string } }>;
}

describe.skipIf(!built && process.env.CI !== "true")("docqa serve (needs `npm run build`)", () => {
  const servers: ChildProcess[] = [];
  afterEach(() => {
    for (const server of servers.splice(0)) server.kill("SIGKILL");
  });

  async function startServer(dataDir: string, environment: Record<string, string> = {}): Promise<ServedDocqa> {
    const served = await startDocqaServe({ ...bm25Only, DATA_DIR: dataDir, JWT_SECRET: "serve-secret", ...environment });
    servers.push(served.process);
    return served;
  }

  async function token(): Promise<string> {
    return (await runDocqaOk(["token", "--email", "ann@x.example", "--org", "org-1"], { JWT_SECRET: "serve-secret" })).stdout.trim();
  }

  function request(url: string, path: string, body: unknown, bearer: string) {
    return fetch(`${url}${path}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${bearer}`, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
  }

  it("answers earlier documents after a restart with the same DATA_DIR", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "docqa-serve-"));
    const bearer = await token();
    const first = await startServer(dataDir);
    const documents = { wifi: { title: "Wi-Fi", content: "The guest Wi-Fi password changes every Monday." } };
    const upsert = await request(first.url, "/upsert", { user_email: "ann@x.example", documents }, bearer);
    expect(upsert.status).toBe(200);
    first.process.kill("SIGTERM");
    await new Promise((resolve) => first.process.on("exit", resolve));

    const second = await startServer(dataDir, { PERF_LOG: "true" });
    const predict = await request(
      second.url,
      "/predict",
      { query: "When does the guest Wi-Fi password change?", user_info: { user_name: "ann@x.example" } },
      bearer,
    );
    const body = (await predict.json()) as Asked;
    expect(body.answer.callout_answer).toBe("The guest Wi-Fi password changes every Monday. [Source: doc_1]");
    expect(body.sources.doc_1?.metadata.doc_id).toBe("wifi");

    // PERF_LOG=true: three PERF lines on standard output, JSON with integer millisecond times.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const perfLines = second.stdout
      .join("")
      .split("\n")
      .filter((line) => line.startsWith("PERF "));
    const events = perfLines.map((line) => JSON.parse(line.slice("PERF ".length)) as Record<string, unknown>);
    expect(events.map((event) => event.event)).toEqual(["rag_start", "retrieval_done", "rag_end"]);
    expect(events[2]).toMatchObject({ docs_count: 1, model: "extractive", num_predict: null, num_ctx: null });
    for (const key of ["ts", "total_ms", "retrieval_ms", "context_ms", "llm_ms", "post_ms", "context_chars"]) {
      expect(Number.isInteger(events[2]?.[key]), key).toBe(true);
    }
  }, 60_000);

  it("after kill -9 during large upserts, the store opens and the document is wholly old or wholly new", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "docqa-serve-"));
    const bearer = await token();
    const edition = (tag: string) => ({
      title: "Handbook",
      content: Array.from({ length: 40_000 }, (_, index) => `Paragraph ${index} of the ${tag} handbook edition.`).join("\n\n"),
    });
    let server = await startServer(dataDir);
    const initial = await request(
      server.url,
      "/upsert",
      { user_email: "ann@x.example", documents: { handbook: edition("oldest") } },
      bearer,
    );
    expect(initial.status).toBe(200);
    const chunkCount = Number(((await initial.json()) as { num_chunks: string }).num_chunks);
    const editions = ["newest", "oldest", "newest", "oldest"];
    for (const [round, tag] of editions.entries()) {
      const pending = request(server.url, "/upsert", { user_email: "ann@x.example", documents: { handbook: edition(tag) } }, bearer).catch(
        () => undefined,
      );
      await new Promise((resolve) => setTimeout(resolve, 100 + round * 60));
      server.process.kill("SIGKILL");
      await pending;
      await new Promise((resolve) => server.process.on("exit", resolve));

      server = await startServer(dataDir);
      const response = await request(
        server.url,
        "/predict",
        { query: "handbook edition paragraph", user_info: { user_name: "ann@x.example" } },
        bearer,
      );
      expect(response.status).toBe(200);
      const file = readdirSync(dataDir).find((name) => name.endsWith(".sqlite")) as string;
      const database = new DatabaseSync(join(dataDir, file), { readOnly: true });
      const counts = database
        .prepare(
          "SELECT COUNT(*) AS total, SUM(text LIKE '%oldest handbook%') AS oldest, SUM(text LIKE '%newest handbook%') AS newest FROM chunks WHERE doc_id = 'handbook'",
        )
        .get() as { total: number; oldest: number; newest: number };
      // Summary nodes are written in the same transaction: they too hold one edition only.
      const summaries = database
        .prepare(
          "SELECT SUM(text LIKE '%oldest handbook%') AS oldest, SUM(text LIKE '%newest handbook%') AS newest FROM chunks WHERE doc_id LIKE 'raptor:%'",
        )
        .get() as { oldest: number | null; newest: number | null };
      expect(database.prepare("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
      database.close();
      expect(counts.total).toBe(chunkCount);
      expect([counts.oldest, counts.newest].sort((left, right) => left - right)).toEqual([0, chunkCount]);
      expect(Math.min(summaries.oldest ?? 0, summaries.newest ?? 0)).toBe(0);
      expect((counts.oldest > 0 ? summaries.oldest : summaries.newest) ?? 0).toBeGreaterThan(0);
    }
  }, 120_000);
});
