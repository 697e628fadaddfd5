/**
 * End-to-end tests of the built `docqa` executable: ingest and ask over real documents from
 * ../shared/data/documents, the README quick start corpus, and `docqa serve` restarts and
 * kill -9 during an upsert.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { findLocalModels, isContinuousIntegration, sharedDataPath } from "@docqa/core/testing";
import { afterEach, describe, expect, it } from "vitest";

const execFileAsync = promisify(execFile);
const repositoryRoot = fileURLToPath(new URL("../../..", import.meta.url));
const docqa = join(repositoryRoot, "packages", "cli", "bin", "docqa.js");
const built = existsSync(join(repositoryRoot, "packages", "cli", "dist", "bin.js"));
const documentsDirectory = sharedDataPath("documents");
const bm25Only = { EMBED_PROVIDER: "none" };
// A real model from ../shared/data/models (or $DOCQA_MODELS_DIR, or .models); nothing is downloaded.
const model = findLocalModels(["bge-small-en-v1.5", "all-MiniLM-L6-v2"])[0];
const realModel = model
  ? {
      EMBED_PROVIDER: "transformers",
      EMBED_MODEL_PATH: model.root,
      EMBED_MODEL_NAME: model.id,
      EMBED_DIMENSION: String(model.dimension),
      EMBED_DTYPE: model.dtype,
    }
  : undefined;

async function run(args: string[], environment: Record<string, string>): Promise<{ stdout: string; stderr: string }> {
  return execFileAsync(process.execPath, [docqa, ...args], {
    cwd: repositoryRoot,
    env: { ...process.env, LOG_LEVEL: "warn", ...environment },
    maxBuffer: 16 * 1024 * 1024,
  });
}

interface AskedSource {
  title: string;
  page_content: string;
  metadata: { filename?: string; doc_id: string };
}

/** The files a cited source comes from: its own, or for a RAPTOR summary, those of the documents it summarises. */
function filesOf(source: AskedSource | undefined): string[] {
  if (!source) return [];
  const summarised = (source.metadata as { raptor_documents?: { doc_id: string }[] }).raptor_documents;
  if (summarised) return summarised.map((document) => document.doc_id.split("/").at(-1) as string);
  return [source.metadata.filename as string];
}

interface Asked {
  answer: { callout_answer: string };
  sources: Record<string, AskedSource>;
}

async function ask(question: string, environment: Record<string, string>, org = "acme"): Promise<Asked> {
  const { stdout } = await run(["ask", "--org", org, "--user", "reader@acme.example", "--json", question], environment);
  return JSON.parse(stdout) as Asked;
}

/** Questions over ../shared/data/documents/{txt,md}: the file holding the answer and a phrase of the answer. */
const sharedQuestions = [
  { question: "What is the default integer type in Rust?", file: "rust-book-ch03-02-data-types.md", phrase: "i32" },
  {
    question: "How do you update Rust to the latest version with rustup?",
    file: "rust-book-ch01-01-installation.md",
    phrase: "rustup update",
  },
  { question: "Which file extension do Rust source files always end with?", file: "rust-book-ch01-02-hello-world.md", phrase: ".rs" },
  { question: "Why don't Rust strings support indexing?", file: "rust-book-ch08-02-strings.md", phrase: "index" },
  { question: "When was Iwan Roberts born?", file: "norwich-city-wikipedia.txt", phrase: "26 June 1968" },
  { question: "Who was the speaker in July 1805?", file: "war-and-peace-1p.txt", phrase: "Anna Pavlovna" },
  { question: "What are the rules of ownership in Rust?", file: "rust-book-ch04-01-what-is-ownership.md", phrase: "owner" },
];

const exampleQuestions = JSON.parse(readFileSync(join(repositoryRoot, "examples", "corpus-questions.json"), "utf8")) as {
  question: string;
  document: string;
  answer: string;
}[];

describe.skipIf(!built && process.env.CI !== "true")("docqa CLI (needs `npm run build`)", () => {
  const configurations: [string, Record<string, string> | undefined][] = [
    ["BM25 only", bm25Only],
    [`hybrid with ${model?.id ?? "a real model (none found under ../shared/data/models: skipped)"}`, realModel],
  ];

  // Without ../shared/data these skip, except in CI; the hybrid run needs a local model.
  describe.skipIf(!documentsDirectory && !isContinuousIntegration())("over ../shared/data/documents (TXT and MD)", () => {
    for (const [name, environment] of configurations) {
      it.skipIf(!environment)(
        `ingests, then answers citing the file that holds the answer (${name})`,
        async () => {
          expect(documentsDirectory, "../shared/data/documents is missing").toBeDefined();
          const dataDir = mkdtempSync(join(tmpdir(), "docqa-cli-"));
          const env = { ...(environment as Record<string, string>), DATA_DIR: dataDir };
          const folders = [join(documentsDirectory as string, "txt"), join(documentsDirectory as string, "md")];
          const ingest = await run(["ingest", ...folders, "--org", "acme", "--no-progress"], env);
          expect(ingest.stdout).toMatch(/^ingested 19 of 22 files into organisation acme \(19 written, 0 unchanged, 3 rejected\)/);
          expect(ingest.stdout).toContain("empty.txt: empty.txt is empty (0 bytes) (empty_file)");
          expect(ingest.stdout).toContain("umlauts-latin1.md: umlauts-latin1.md is not UTF-8; decoded as windows-1252");
          for (const { question, file, phrase } of sharedQuestions) {
            const result = await ask(question, env);
            const cited = /\[Source: (doc_\d+)\]$/.exec(result.answer.callout_answer)?.[1] as string;
            expect(filesOf(result.sources[cited]), question).toContain(file);
            const citedText = [result.answer.callout_answer, ...Object.values(result.sources).map((source) => source.page_content)].join(
              " ",
            );
            expect(citedText, question).toContain(phrase);
          }
        },
        180_000,
      );
    }
  });

  it("answers the example corpus questions, citing the right document", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "docqa-cli-"));
    const env = { ...bm25Only, DATA_DIR: dataDir };
    await run(["ingest", "examples/corpus", "--org", "northwind", "--no-progress"], env);
    for (const { question, document, answer } of exampleQuestions) {
      const result = await ask(question, env, "northwind");
      expect(result.answer.callout_answer, question).toContain(answer);
      const cited = /\[Source: (doc_\d+)\]$/.exec(result.answer.callout_answer)?.[1] as string;
      expect(result.sources[cited]?.metadata.doc_id, question).toBe(document);
    }
    const human = await run(
      ["ask", "--org", "northwind", "--user", "ann@northwind.example", "How many vacation days do new employees get?"],
      env,
    );
    expect(human.stdout).toMatch(/^New employees receive 20 vacation days .* \[Source: doc_\d+\]\n/);
    expect(human.stdout).toMatch(/\[doc_\d+\] Vacation and Leave Policy \(vacation-policy\.md, chunk \d+\)/);
    // The quick start's answer: one sentence with its citation, no supporting points or caveats.
    const [callout] = human.stdout.split("\n");
    expect(callout?.replace(/ \[Source: doc_\d+\]$/, "").match(/[.!?](\s|$)/g)).toHaveLength(1);
    expect(human.stdout).not.toMatch(/Caveats:|Supporting points:|Also relevant:/);
    // A question from another domain: the no-information answer and no sources.
    const outside = await ask("What is the capital city of Mongolia?", env, "northwind");
    expect(outside.answer.callout_answer).toBe("No information could be found in the provided sources to answer this question.");
    expect(outside.sources).toEqual({});
  }, 120_000);

  describe.skipIf(!sharedDataPath("ir", "scifact") && !isContinuousIntegration())("docqa eval on deterministic slices", () => {
    it("reports BEIR metrics for BM25 on the first 20 SciFact queries, with an HTML report", async () => {
      const report = join(mkdtempSync(join(tmpdir(), "docqa-eval-")), "report.html");
      const { stdout } = await run(
        [
          "eval",
          sharedDataPath("ir", "scifact") as string,
          "--configs",
          "bm25",
          "--limit",
          "20",
          "--json",
          "--no-progress",
          "--report",
          report,
        ],
        bm25Only,
      );
      const { results } = JSON.parse(stdout) as { results: { name: string; metrics: Record<string, number> }[] };
      expect(results.map((result) => result.name)).toEqual(["bm25"]);
      const metrics = results[0]?.metrics as Record<string, number>;
      expect(metrics.queries).toBe(20);
      expect(metrics.ndcgAt10).toBeCloseTo(0.686807, 5);
      expect(metrics.recallAt10).toBeCloseTo(0.85, 10);
      expect(metrics.recallAt100).toBeCloseTo(0.9, 10);
      expect(metrics.mrrAt10).toBeCloseTo(0.633333, 5);
      const html = readFileSync(report, "utf8");
      expect(html).toContain("<svg");
      expect(html).toContain("<td>bm25</td>");
    }, 120_000);

    it("reports answer metrics on the first 40 SQuAD 2.0 questions", async () => {
      const { stdout } = await run(
        ["eval", sharedDataPath("qa", "squad-v2-dev-2articles") as string, "--limit", "40", "--json", "--no-progress"],
        bm25Only,
      );
      const result = JSON.parse(stdout) as Record<string, unknown>;
      expect(result).toMatchObject({ answerable: 17, unanswerable: 23, summarySources: 0, unsupportedCitations: 0 });
      expect(result.citedRate).toBeCloseTo(12 / 17, 10);
      expect(result.retrievedRate).toBeCloseTo(12 / 17, 10);
      expect(result.calloutContainsAnswerRate).toBeCloseTo(7 / 17, 10);
      expect(result.falseAbstentionRate).toBe(0);
      expect(result.abstentionRecall).toBeCloseTo(3 / 23, 10);
      expect(result.abstentionPrecision).toBe(1);
      expect(result.abstentionReasons).toEqual({ no_documents: 0, low_relevance: 2, not_answerable: 1 });
    }, 120_000);
  });

  it("mints a token with the spec's claims", async () => {
    const { stdout } = await run(["token", "--email", "ann@x.example", "--org", "org-1", "--role", "hr"], { JWT_SECRET: "s3cret" });
    const [, payload] = stdout.trim().split(".");
    expect(JSON.parse(Buffer.from(payload as string, "base64url").toString())).toMatchObject({
      email: "ann@x.example",
      org_id: "org-1",
      role: "hr",
      type: "access",
      iss: "oauth-app",
    });
  });

  describe("docqa serve", () => {
    const servers: ChildProcess[] = [];
    afterEach(() => {
      for (const server of servers.splice(0)) server.kill("SIGKILL");
    });

    async function startServer(
      dataDir: string,
      environment: Record<string, string> = {},
    ): Promise<{ url: string; process: ChildProcess; stdout: string[] }> {
      const child = spawn(process.execPath, [docqa, "serve", "--api", "a", "--port", "0", "--host", "127.0.0.1"], {
        cwd: repositoryRoot,
        env: { ...process.env, ...bm25Only, DATA_DIR: dataDir, JWT_SECRET: "serve-secret", LOG_LEVEL: "warn", ...environment },
        stdio: ["ignore", "pipe", "pipe"],
      });
      servers.push(child);
      const stdout: string[] = [];
      child.stdout?.on("data", (data: Buffer) => stdout.push(data.toString()));
      const url = await new Promise<string>((resolve, reject) => {
        let output = "";
        child.stderr?.on("data", (data: Buffer) => {
          output += data.toString();
          const match = /listening on (http:\/\/[\d.]+:\d+)/.exec(output);
          if (match) resolve(match[1] as string);
        });
        child.on("exit", (code) => reject(new Error(`docqa serve exited with ${code}: ${output}`)));
      });
      return { url, process: child, stdout };
    }

    async function token(): Promise<string> {
      return (await run(["token", "--email", "ann@x.example", "--org", "org-1"], { JWT_SECRET: "serve-secret" })).stdout.trim();
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
        const pending = request(
          server.url,
          "/upsert",
          { user_email: "ann@x.example", documents: { handbook: edition(tag) } },
          bearer,
        ).catch(() => undefined);
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
});
