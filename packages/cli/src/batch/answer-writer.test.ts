import { appendFileSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import type { BatchAnswer } from "@docqa/core";
import { describe, expect, it } from "vitest";
import { answeredIds, answerFormatFor, answerRecord, answerRow, openAnswerWriter, type PredictBody } from "./answer-writer.js";

const body: PredictBody = {
  answer: { callout_answer: "Twenty days. [Source: doc_1]" },
  sources: { doc_1: { metadata: { doc_id: "vacation-policy.md" } }, doc_2: { metadata: { doc_id: "faq, part 2.md" } } },
  thread_id: "0b9e5c2a-6f1d-4e8b-9a3c-7d2e1f4b5a60",
  answer_mode: "extractive",
};
const answered: BatchAnswer<PredictBody> = {
  index: 0,
  question: { id: "q1", question: "How many days?" },
  outcome: "answered",
  result: body,
  error: undefined,
  latencyMs: 12.6,
};
const failed: BatchAnswer<PredictBody> = {
  index: 1,
  question: { id: "q2", question: 'Who said "hi", then?' },
  outcome: "failed",
  result: undefined,
  error: { code: "model_timeout", message: "the chat model did not answer within 30000 ms" },
  latencyMs: 30_001,
};

describe("answer records", () => {
  it("writes the /predict body with id, outcome, latency and error, and a failed question with its input", () => {
    expect(answerRecord(answered)).toEqual({ id: "q1", ...body, outcome: "answered", latency_ms: 13, error: null });
    expect(Object.keys(answerRecord(answered))[0]).toBe("id");
    expect(answerRecord(failed)).toEqual({
      id: "q2",
      input: 'Who said "hi", then?',
      thread_id: null,
      outcome: "failed",
      latency_ms: 30001,
      error: { code: "model_timeout", message: "the chat model did not answer within 30000 ms" },
    });
  });

  it("flattens an answer into a CSV row listing the cited documents", () => {
    expect(answerRow(answered)).toEqual({
      id: "q1",
      question: "How many days?",
      outcome: "answered",
      answer: "Twenty days. [Source: doc_1]",
      sources: "doc_1=vacation-policy.md; doc_2=faq, part 2.md",
      thread_id: "0b9e5c2a-6f1d-4e8b-9a3c-7d2e1f4b5a60",
      answer_mode: "extractive",
      latency_ms: 13,
      error_code: "",
      error_message: "",
    });
    expect(answerFormatFor("out.CSV")).toBe("csv");
    expect(answerFormatFor("out.jsonl")).toBe("jsonl");
    expect(answerFormatFor(undefined)).toBe("jsonl");
  });
});

describe("openAnswerWriter and answeredIds", () => {
  it("writes JSON Lines to standard output", async () => {
    const stdout = new PassThrough();
    const chunks: string[] = [];
    stdout.on("data", (data: Buffer) => chunks.push(data.toString()));
    const writer = await openAnswerWriter(undefined, "jsonl", { stdout });
    await writer.write(answered);
    await writer.close();
    expect(chunks.join("")).toBe(`${JSON.stringify(answerRecord(answered))}\n`);
  });

  it("resumes a JSON Lines file cut mid-line: answered ids are kept, failed and cut ones asked again", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "docqa-answers-")), "answers.jsonl");
    const first = await openAnswerWriter(file, "jsonl");
    await first.write(answered);
    await first.write(failed);
    await first.close();
    appendFileSync(file, '{"id": "q3", "answer": {"callout');
    expect([...(await answeredIds(file, "jsonl"))]).toEqual(["q1"]);
    const second = await openAnswerWriter(file, "jsonl", { append: true });
    await second.write({ ...failed, outcome: "answered", result: body, error: undefined });
    await second.close();
    const lines = readFileSync(file, "utf8").split("\n");
    expect(lines).toHaveLength(5);
    expect(lines[2]).toBe('{"id": "q3", "answer": {"callout');
    expect(JSON.parse(lines[3] as string)).toMatchObject({ id: "q2", outcome: "answered", error: null });
    expect([...(await answeredIds(file, "jsonl"))].sort()).toEqual(["q1", "q2"]);
    expect((await answeredIds(join(file, "..", "absent.jsonl"), "jsonl")).size).toBe(0);
  });

  it("writes CSV with one header, quoting where needed, and resumes it", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "docqa-answers-")), "answers.csv");
    const first = await openAnswerWriter(file, "csv");
    await first.write(answered);
    await first.write(failed);
    await first.close();
    const second = await openAnswerWriter(file, "csv", { append: true });
    await second.write({ ...answered, question: { id: "q3", question: "Third?" } });
    await second.close();
    expect(readFileSync(file, "utf8").split("\r\n").join("\n")).toBe(
      [
        "id,question,outcome,answer,sources,thread_id,answer_mode,latency_ms,error_code,error_message",
        'q1,How many days?,answered,Twenty days. [Source: doc_1],"doc_1=vacation-policy.md; doc_2=faq, part 2.md",0b9e5c2a-6f1d-4e8b-9a3c-7d2e1f4b5a60,extractive,13,,',
        'q2,"Who said ""hi"", then?",failed,,,,,30001,model_timeout,the chat model did not answer within 30000 ms',
        'q3,Third?,answered,Twenty days. [Source: doc_1],"doc_1=vacation-policy.md; doc_2=faq, part 2.md",0b9e5c2a-6f1d-4e8b-9a3c-7d2e1f4b5a60,extractive,13,,',
        "",
      ].join("\n"),
    );
    expect([...(await answeredIds(file, "csv"))]).toEqual(["q1", "q3"]);
  });
});
