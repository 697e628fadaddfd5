/**
 * Acceptance test of batch question answering: 200 questions of XQuAD (English) over its 225
 * paragraphs, ingested as documents, answered by `docqa ask --file` in-process and through a
 * running server's set A (`--server`), each line checked against a single `POST /predict` call
 * for the same question: same answer, same sources, same outcome. BM25 only, so it runs in
 * seconds; the same comparison with an embedding model is `BENCH_ONLY=cli` in bench/.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isContinuousIntegration, sharedDataPath } from "@docqa/core/testing";
import { afterAll, describe, expect, it } from "vitest";
import { bm25Only, built, jsonLines, runDocqaOk, startDocqaServe } from "./testing/run-docqa.js";

const xquad = sharedDataPath("qa", "xquad-en");
const questionCount = 200;

type Line = Record<string, unknown> & { id: string; outcome: string; error: unknown; answer: { callout_answer: string } };

/** The parts of a /predict body that must agree between two calls (thread ids are new per call; llm_ms is a timing). */
function comparable(body: Record<string, unknown>): Record<string, unknown> {
  const { thread_id: _thread, llm_ms: _llm, id: _id, outcome: _outcome, latency_ms: _latency, error: _error, ...rest } = body;
  return rest;
}

describe.skipIf((!built || !xquad) && !isContinuousIntegration())("docqa ask --file on 200 XQuAD questions", () => {
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const child of children) child.kill("SIGTERM");
  });

  it("answers in-process and over HTTP exactly as single /predict calls do", async () => {
    expect(xquad, "../shared/data/qa/xquad-en is missing").toBeDefined();
    const directory = mkdtempSync(join(tmpdir(), "docqa-xquad-"));
    const env = { ...bm25Only, DATA_DIR: join(directory, "data"), JWT_SECRET: "xquad-secret" };
    const ingest = await runDocqaOk(
      ["ingest", join(xquad as string, "contexts.jsonl"), "--org", "xquad", "--acl", "|user:_all_|", "--quiet"],
      env,
    );
    expect(ingest.stdout).toMatch(/^ingested 1 of 1 files into organisation xquad \(1 written, 0 unchanged, 0 rejected\): 225 documents/);
    const questions = readFileSync(join(xquad as string, "questions.jsonl"), "utf8")
      .split("\n")
      .slice(0, questionCount);
    const questionsFile = join(directory, "questions.jsonl");
    writeFileSync(questionsFile, `${questions.join("\n")}\n`);
    const asked = questions.map((line) => JSON.parse(line) as { _id: string; question: string });

    const inProcess = join(directory, "in-process.jsonl");
    await runDocqaOk(
      ["ask", "--file", questionsFile, "--org", "xquad", "--user", "reader@xquad.example", "--output", inProcess, "--quiet"],
      env,
    );

    const server = await startDocqaServe(env);
    children.push(server.process);
    const token = (await runDocqaOk(["token", "--email", "reader@xquad.example", "--org", "xquad"], env)).stdout.trim();
    const overHttp = join(directory, "over-http.jsonl");
    const http = await runDocqaOk(
      ["ask", "--file", questionsFile, "--server", server.url, "--output", overHttp, "--concurrency", "8", "--order", "completion"],
      { DOCQA_TOKEN: token },
    );
    expect(http.stderr).toMatch(
      new RegExp(`^${questionCount} questions in [\\d.]+ s \\([\\d.]+/s\\): \\d+ answered, \\d+ abstained, 0 failed;`),
    );

    const local = jsonLines<Line>(readFileSync(inProcess, "utf8"));
    const remote = new Map(jsonLines<Line>(readFileSync(overHttp, "utf8")).map((line) => [line.id, line]));
    expect(local.map((line) => line.id)).toEqual(asked.map((question) => question._id));
    expect(remote.size).toBe(questionCount);
    let answered = 0;
    for (const [index, { _id, question }] of asked.entries()) {
      const response = await fetch(`${server.url}/predict`, {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
        body: JSON.stringify({ query: question, user_info: { user_name: "reader@xquad.example" } }),
      });
      expect(response.status).toBe(200);
      const single = comparable((await response.json()) as Record<string, unknown>);
      const line = local[index] as Line;
      expect(comparable(line), `in-process line ${index + 1} (${_id})`).toEqual(single);
      expect(comparable(remote.get(_id) as Line), `HTTP answer of ${_id}`).toEqual(single);
      expect(line.error).toBeNull();
      expect(remote.get(_id)?.outcome).toBe(line.outcome);
      if (line.outcome === "answered") answered++;
    }
    // A sanity bound, not a figure of quality (docs/answering.md reports those): the extractive
    // answerer declines about 12-13 % of SQuAD's answerable test questions as low_relevance, so of
    // 200 answerable questions about 175 are answered (176 with the weights of 2026-11-29, 180 and
    // 181 with earlier fits); 80 % lies three binomial standard errors (3 × 2.3 points) below that
    // rate, so a refit does not move it and a pipeline that declines wholesale fails it.
    expect(answered).toBeGreaterThanOrEqual(questionCount * 0.8);
  }, 180_000);
});
