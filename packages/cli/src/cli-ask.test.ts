/**
 * End-to-end tests of the built `docqa` executable over the README's example corpus (BM25 only):
 * a batch of questions from standard input, a single question, the exit codes, the warnings and
 * messages a new user meets, and token minting. One data directory is ingested once and shared.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { bm25Only, built, jsonLines, repositoryRoot, runDocqa, runDocqaOk } from "./testing/run-docqa.js";

const exampleQuestions = JSON.parse(readFileSync(join(repositoryRoot, "examples", "corpus-questions.json"), "utf8")) as {
  question: string;
  document: string;
  answer: string;
}[];

interface AnswerLine {
  id: string;
  answer: { callout_answer: string };
  sources: Record<string, { metadata: { doc_id: string } }>;
  outcome: string;
  error: { code: string; message: string } | null;
  latency_ms: number;
}

const citedDocument = (line: AnswerLine) => {
  const cited = /\[Source: (doc_\d+)\]$/.exec(line.answer.callout_answer)?.[1] as string;
  return line.sources[cited]?.metadata.doc_id;
};

describe.skipIf(!built && process.env.CI !== "true")("docqa ask and ingest over the example corpus (needs `npm run build`)", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "docqa-cli-"));
  const env = { ...bm25Only, DATA_DIR: dataDir };
  beforeAll(async () => {
    const ingest = await runDocqaOk(["ingest", "examples/corpus", "--org", "northwind", "--acl", "|user:_all_|", "--no-progress"], env);
    expect(ingest.stdout).toMatch(/^ingested 6 of 6 files into organisation northwind \(6 written, 0 unchanged, 0 rejected\)/);
    expect(ingest.stdout).toContain("owner cli@localhost, ACL |user:_all_| (everyone in the organisation)");
  }, 60_000);

  it("answers a JSON Lines batch from standard input, citing the right documents, as single calls do", async () => {
    const input = exampleQuestions.map((entry, index) => JSON.stringify({ id: `q${index + 1}`, question: entry.question })).join("\n");
    const batch = await runDocqaOk(
      ["ask", "--org", "northwind", "--user", "reader@northwind.example", "--file", "-", "--json"],
      env,
      0,
      input,
    );
    const lines = jsonLines<AnswerLine>(batch.stdout);
    expect(lines.map((line) => line.id)).toEqual(exampleQuestions.map((_, index) => `q${index + 1}`));
    for (const [index, { question, document, answer }] of exampleQuestions.entries()) {
      const line = lines[index] as AnswerLine;
      expect(line.answer.callout_answer, question).toContain(answer);
      expect(citedDocument(line), question).toBe(document);
      expect([line.outcome, line.error]).toEqual(["answered", null]);
      expect(Number.isInteger(line.latency_ms)).toBe(true);
    }
    const events = jsonLines<{ event: string; done?: number; asked?: number; answered?: number; failed?: number }>(batch.stderr);
    expect(events.at(-2)).toMatchObject({ event: "progress", done: exampleQuestions.length });
    expect(events.at(-1)).toMatchObject({ event: "summary", asked: exampleQuestions.length, answered: exampleQuestions.length, failed: 0 });
    const single = await runDocqaOk(
      ["ask", "--org", "northwind", "--user", "reader@northwind.example", "--json", exampleQuestions[0]?.question as string],
      env,
    );
    const { thread_id: _thread, llm_ms: _llm, ...body } = JSON.parse(single.stdout) as Record<string, unknown>;
    const {
      thread_id: _batchThread,
      llm_ms: _batchLlm,
      id: _id,
      outcome: _outcome,
      latency_ms: _latency,
      error: _error,
      ...batchBody
    } = lines[0] as unknown as Record<string, unknown>;
    expect(batchBody).toEqual(body);
  }, 60_000);

  it("prints a single answer for a terminal", async () => {
    const human = await runDocqaOk(
      ["ask", "--org", "northwind", "--user", "ann@northwind.example", "How many vacation days do new employees get?"],
      env,
    );
    expect(human.stdout).toMatch(/^New employees receive 20 vacation days .* \[Source: doc_\d+\]\n/);
    expect(human.stdout).toMatch(/\[doc_\d+\] Vacation and Leave Policy \(vacation-policy\.md, chunk \d+\)/);
    expect(human.stderr).toBe("");
    // The quick start's answer: one sentence with its citation, no supporting points or caveats.
    const [callout] = human.stdout.split("\n");
    expect(callout?.replace(/ \[Source: doc_\d+\]$/, "").match(/[.!?](\s|$)/g)).toHaveLength(1);
    expect(human.stdout).not.toMatch(/Caveats:|Supporting points:|Also relevant:/);
  }, 30_000);

  it("with nothing configured, says nothing on standard error and tries no download; --help says how to add a model", async () => {
    const quiet = await runDocqaOk(
      ["ask", "--org", "northwind", "--user", "ann@northwind.example", "How many vacation days do new employees get?"],
      { DATA_DIR: dataDir },
    );
    expect(quiet.stdout).toMatch(/^New employees receive 20 vacation days/);
    expect(quiet.stderr).toBe("");
    // At debug level: the default model was looked for in the local cache only.
    const debug = await runDocqaOk(["ask", "--org", "northwind", "--user", "ann@northwind.example", "Vacation days?"], {
      DATA_DIR: dataDir,
      LOG_LEVEL: "debug",
    });
    expect(debug.stderr).toContain(
      "no embedding model: cannot load embedding model Xenova/bge-base-en-v1.5 (q8) from the local cache (EMBED_ALLOW_REMOTE=false)",
    );
    expect(debug.stderr).not.toMatch(/^warning/m);
    const help = await runDocqaOk(["ask", "--help"], {});
    expect(help.stdout).toContain("Models: with nothing configured, retrieval is BM25 (keywords) only and answers are extractive");
    expect(help.stdout).toContain("EMBED_MODEL_PATH=<folder of models>");
  }, 60_000);

  it("abstains on a question from another domain, saying why", async () => {
    const outside = await runDocqaOk(
      ["ask", "--org", "northwind", "--user", "ann@northwind.example", "--json", "What is the capital city of Mongolia?"],
      env,
    );
    const body = JSON.parse(outside.stdout) as Record<string, unknown>;
    expect(body.answer).toMatchObject({
      callout_answer: "No information could be found in the provided sources to answer this question.",
      positive_list: [],
      negative_list: [],
      info_list: [],
    });
    expect(body.sources).toEqual({});
    expect(body.abstained).toBe(true);
    expect(body.abstention_reason).toBe("low_relevance");
  }, 30_000);

  it("writes CSV, resumes it, and exits 2 when a question fails", async () => {
    const directory = mkdtempSync(join(tmpdir(), "docqa-batch-"));
    const questions = join(directory, "questions.csv");
    const output = join(directory, "answers.csv");
    writeFileSync(questions, `id,question\nwifi,How long must passwords be?\nlong,"${"Why? ".repeat(2000).trim()}"\n`);
    const first = await runDocqa(
      ["ask", "--org", "northwind", "--user", "ann@northwind.example", "--file", questions, "--output", output],
      env,
    );
    expect(first.code).toBe(2);
    expect(first.stderr).toMatch(
      /^2 questions in \d+\.\d s \(\d+\.\d\/s\): 1 answered, 0 abstained, 1 failed; latency p50 \d+ ms, p95 \d+ ms\n$/,
    );
    const rows = readFileSync(output, "utf8").trim().split(/\r?\n/);
    expect(rows[0]).toBe("id,question,outcome,answer,sources,thread_id,answer_mode,latency_ms,error_code,error_message");
    expect(rows[1]).toMatch(/^wifi,How long must passwords be\?,answered,Passwords must be at least 14 characters long\./);
    expect(rows[2]).toMatch(/^long,Why\? .*,failed,,,,,\d+,invalid_request,/);
    const resumed = await runDocqa(
      ["ask", "--org", "northwind", "--user", "ann@northwind.example", "--file", questions, "--output", output, "--resume"],
      env,
    );
    expect(resumed.code).toBe(3);
    expect(resumed.stderr).toMatch(
      /^1 question in .*: 0 answered, 0 abstained, 1 failed; .*; 1 skipped \(already answered in the output\)\n$/,
    );
  }, 60_000);

  it("uses documented exit codes and says what went wrong", async () => {
    const missing = await runDocqa(["ingest", "/nonexistent/docqa-folder", "--org", "acme", "--owner", "ann@acme.example"], env);
    expect([missing.code, missing.stdout]).toEqual([3, ""]);
    expect(missing.stderr).toBe("  /nonexistent/docqa-folder: not found\ndocqa ingest: no file to ingest in /nonexistent/docqa-folder\n");

    const partial = await runDocqa(
      ["ingest", "examples/corpus/it-support.txt", "/nonexistent/x.md", "--org", "northwind", "--acl", "|user:_all_|"],
      env,
    );
    expect(partial.code).toBe(2);
    expect(partial.stdout).toMatch(/^ingested 1 of 1 files .*\n.*\nskipped or rejected 1 files:\n {2}\/nonexistent\/x\.md: not found\n$/);

    const noOwner = await runDocqa(["ingest", "examples/corpus", "--org", "northwind"], { ...env, DOCQA_USER: "" });
    expect(noOwner.code).toBe(1);
    expect(noOwner.stderr).toBe(
      "docqa: without --acl only the owner may read the documents, and no owner is given: add --owner <email> (the user who may read them) or --acl '|user:_all_|' (everyone in organisation northwind) (invalid_request)\n",
    );

    const usage = await runDocqa(["ask", "--org", "northwind", "--user", "ann@x.org", "--concurrency", "0", "--file", "-"], env);
    expect([usage.code, usage.stderr]).toEqual([1, "docqa: --concurrency must be a whole number >= 1, not 0 (invalid_request)\n"]);
    const both = await runDocqa(["ask", "--org", "northwind", "--user", "ann@x.org"], env);
    expect([both.code, both.stderr]).toEqual([
      1,
      "docqa: give one question, or --file <path> (- for standard input), not both (invalid_request)\n",
    ]);
    const unknown = await runDocqa(["ask", "--colour"], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("error: unknown option '--colour'");

    const noQuestions = await runDocqa(["ask", "--org", "northwind", "--user", "ann@x.org", "--file", "-"], env, { input: "\n\n" });
    expect([noQuestions.code, noQuestions.stderr]).toEqual([3, "docqa ask: no questions in standard input\n"]);
    const noFile = await runDocqa(["ask", "--org", "northwind", "--user", "ann@x.org", "--file", "/nonexistent/questions.txt"], env);
    expect([noFile.code, noFile.stderr]).toEqual([3, "docqa: questions file /nonexistent/questions.txt does not exist (not_found)\n"]);
  }, 60_000);

  it("warns when the organisation has no documents", async () => {
    const typo = await runDocqaOk(["ask", "--org", "nortwind", "--user", "ann@northwind.example", "How many vacation days?"], env);
    expect(typo.stdout).toMatch(/^No information could be found/);
    expect(typo.stderr).toBe(
      `warning: organisation "nortwind" has no documents in the embedded store (DATA_DIR ${dataDir}): check --org, or ingest documents first (docqa ingest <paths> --org nortwind)\n`,
    );
    const quiet = await runDocqaOk(
      ["ask", "--org", "nortwind", "--user", "ann@northwind.example", "--quiet", "How many vacation days?"],
      env,
    );
    expect(quiet.stderr).toBe("");
  }, 30_000);

  it("prints the quick start's answer exactly as the README shows it", async () => {
    const quickstart = spawnSync(
      process.execPath,
      ["scripts/quickstart.mjs", "--no-build", "--check-readme", "--data-dir", mkdtempSync(join(tmpdir(), "docqa-quickstart-"))],
      { cwd: repositoryRoot, encoding: "utf8", env: { ...process.env, ...bm25Only, LOG_LEVEL: "warn" } },
    );
    expect(quickstart.stderr).toBe("");
    expect(quickstart.status).toBe(0);
    expect(quickstart.stdout).toContain(
      "\n$ docqa ask --org northwind --user ann@northwind.example 'How many vacation days do new employees get?'\n",
    );
  }, 60_000);

  it("mints a token with the spec's claims", async () => {
    const { stdout } = await runDocqaOk(["token", "--email", "ann@x.example", "--org", "org-1", "--role", "hr"], { JWT_SECRET: "s3cret" });
    const [, payload] = stdout.trim().split(".");
    expect(JSON.parse(Buffer.from(payload as string, "base64url").toString())).toMatchObject({
      email: "ann@x.example",
      org_id: "org-1",
      role: "hr",
      type: "access",
      iss: "oauth-app",
    });
  });
});

/** A Node.js older than 22 on this machine (Debian's /usr/bin/node here; the tests run on a newer one), or undefined. */
const oldNode = ["/usr/bin/node", "/usr/local/bin/node", "/bin/node"].find((path) => {
  if (!existsSync(path)) return false;
  try {
    return Number(execFileSync(path, ["-p", "process.versions.node.split('.')[0]"], { encoding: "utf8" }).trim()) < 22;
  } catch {
    return false;
  }
});

describe.skipIf(!built && process.env.CI !== "true")("docqa on an old Node.js", () => {
  if (oldNode === undefined) it.skip("skipped: no Node.js older than 22 on this machine to run the launcher with", () => {});
  else
    it("names the Node.js version it needs instead of crashing on node:sqlite", async () => {
      const result = await runDocqa(["eval", "--help"], {}, { node: oldNode });
      expect(result.code).toBe(1);
      expect(result.stdout).toBe("");
      expect(result.stderr).toMatch(
        /^docqa needs Node\.js 22\.13\.0 or newer \(it uses the built-in node:sqlite\); this is Node\.js (1\d|2[01])\.\d+\.\d+ at \//,
      );
      expect(result.stderr).not.toContain("ERR_UNKNOWN_BUILTIN_MODULE");
      expect((await runDocqa(["--version"], {}, { node: oldNode })).stderr).toBe(result.stderr);
    });
});
