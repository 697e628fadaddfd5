import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { noInformationSentence } from "../answering/answer.js";
import { DocqaError } from "../errors/docqa-error.js";
import { createRagService } from "../service/create-rag-service.js";
import type { PredictRequest, PredictResult } from "../service/rag-service.js";
import { type AnswerLike, askMany, type BatchAnswer, type BatchQuestion, batchError, isAbstention } from "./ask-many.js";

const principal = { userName: "ann@example.org", roles: ["hr"], groups: ["staff"] };

interface Scripted extends AnswerLike {
  query: string;
  user: string;
}

/** A predictor whose calls finish when the test says so, recording how many run at once. */
function scriptedPredictor() {
  const pending = new Map<string, { resolve: (value: Scripted) => void; reject: (error: unknown) => void }>();
  const started: string[] = [];
  const requests: PredictRequest[] = [];
  let running = 0;
  let maximum = 0;
  const waiters: (() => void)[] = [];
  const predictor = {
    predict(request: PredictRequest): Promise<Scripted> {
      requests.push(request);
      started.push(request.query);
      running++;
      maximum = Math.max(maximum, running);
      for (const wake of waiters.splice(0)) wake();
      return new Promise<Scripted>((resolve, reject) => {
        pending.set(request.query, {
          resolve: (value) => {
            running--;
            resolve(value);
          },
          reject: (error) => {
            running--;
            reject(error);
          },
        });
      });
    },
  };
  /** Waits until `count` calls have started. */
  const startedCount = async (count: number) => {
    while (started.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  const finish = (query: string, callout = `answer to ${query}`) =>
    pending.get(query)?.resolve({ answer: { callout_answer: callout }, query, user: "" });
  const fail = (query: string, error: unknown) => pending.get(query)?.reject(error);
  return { predictor, started, requests, startedCount, finish, fail, maximum: () => maximum };
}

const questions = (count: number): BatchQuestion[] =>
  Array.from({ length: count }, (_, index) => ({ id: `q${index + 1}`, question: `question ${index + 1}` }));

async function collect<R>(iterator: AsyncIterable<BatchAnswer<R>>, into: BatchAnswer<R>[]): Promise<void> {
  for await (const answer of iterator) into.push(answer);
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("askMany", () => {
  it("yields answers in input order, running at most `concurrency` questions at once", async () => {
    const script = scriptedPredictor();
    const answers: BatchAnswer<Scripted>[] = [];
    let clock = 0;
    const done = collect(askMany(script.predictor, questions(5), { orgId: "acme", principal, concurrency: 2, now: () => clock }), answers);
    await script.startedCount(2);
    expect(script.started).toEqual(["question 1", "question 2"]);
    clock = 40;
    script.finish("question 2");
    await script.startedCount(3);
    await tick();
    // Question 2 is done but waits for question 1.
    expect(answers).toEqual([]);
    clock = 100;
    script.finish("question 1");
    await script.startedCount(4);
    script.finish("question 4");
    script.finish("question 3");
    await script.startedCount(5);
    script.finish("question 5");
    await done;
    expect(answers.map((answer) => answer.question.id)).toEqual(["q1", "q2", "q3", "q4", "q5"]);
    expect(answers.map((answer) => answer.index)).toEqual([0, 1, 2, 3, 4]);
    expect(answers[0]).toMatchObject({ outcome: "answered", latencyMs: 100, error: undefined });
    expect(answers[1]?.latencyMs).toBe(40);
    expect(answers[0]?.result?.answer.callout_answer).toBe("answer to question 1");
    expect(script.maximum()).toBe(2);
  });

  it("yields answers as they finish with order: completion", async () => {
    const script = scriptedPredictor();
    const answers: BatchAnswer<Scripted>[] = [];
    const done = collect(
      askMany(script.predictor, questions(3), { orgId: "acme", principal, concurrency: 3, order: "completion" }),
      answers,
    );
    await script.startedCount(3);
    script.finish("question 3");
    await tick();
    await tick();
    expect(answers.map((answer) => answer.question.id)).toEqual(["q3"]);
    script.finish("question 1");
    script.finish("question 2");
    await done;
    expect(answers.map((answer) => answer.question.id)).toEqual(["q3", "q1", "q2"]);
    expect(script.maximum()).toBe(3);
  });

  it("records failures and abstentions as outcomes and goes on with the batch", async () => {
    const script = scriptedPredictor();
    const answers: BatchAnswer<Scripted>[] = [];
    const done = collect(askMany(script.predictor, questions(4), { orgId: "acme", principal, concurrency: 4 }), answers);
    await script.startedCount(4);
    script.fail("question 1", new DocqaError("model_timeout", "the chat model did not answer within 30000 ms", { component: "models" }));
    script.finish("question 2", noInformationSentence);
    script.fail("question 3", Object.assign(new Error("HTTP 429 from the server"), { code: "rate_limited" }));
    script.fail("question 4", new Error("boom"));
    await done;
    expect(answers.map((answer) => answer.outcome)).toEqual(["failed", "abstained", "failed", "failed"]);
    expect(answers[0]?.error).toEqual({ code: "model_timeout", message: "the chat model did not answer within 30000 ms" });
    expect(answers[0]?.result).toBeUndefined();
    expect(answers[2]?.error).toEqual({ code: "rate_limited", message: "HTTP 429 from the server" });
    expect(answers[3]?.error).toEqual({ code: "internal_error", message: "boom" });
  });

  it("passes the organisation, the principal, a question's user and thread to predict", async () => {
    const script = scriptedPredictor();
    const answers: BatchAnswer<Scripted>[] = [];
    const thread = "0b9e5c2a-6f1d-4e8b-9a3c-7d2e1f4b5a60";
    const done = collect(
      askMany(
        script.predictor,
        [
          { id: "a", question: "first" },
          { id: "b", question: "second", user: "bob@example.org", threadId: thread },
        ],
        { orgId: "acme", principal },
      ),
      answers,
    );
    await script.startedCount(2);
    script.finish("first");
    script.finish("second");
    await done;
    expect(script.requests.map(({ orgId, principal: who, query, threadId }) => ({ orgId, who, query, threadId }))).toEqual([
      { orgId: "acme", who: principal, query: "first", threadId: undefined },
      { orgId: "acme", who: { ...principal, userName: "bob@example.org" }, query: "second", threadId: thread },
    ]);
  });

  it("reads an async iterable lazily, no further than the read-ahead allows", async () => {
    const script = scriptedPredictor();
    let read = 0;
    async function* source(): AsyncGenerator<BatchQuestion> {
      for (const question of questions(100)) {
        read++;
        yield question;
      }
    }
    const iterator = askMany(script.predictor, source(), { orgId: "acme", principal, concurrency: 2 })[Symbol.asyncIterator]();
    const first = iterator.next();
    await script.startedCount(2);
    for (let round = 0; round < 5; round++) await tick();
    expect(script.started).toHaveLength(2);
    expect(read).toBeLessThanOrEqual(8);
    script.finish("question 1");
    expect((await first).value?.question.id).toBe("q1");
    await iterator.return?.(undefined);
  });

  it("stops at an aborted signal, and rejects a concurrency below 1", async () => {
    const script = scriptedPredictor();
    const controller = new AbortController();
    controller.abort(new Error("stopped by the user"));
    await expect(
      collect(askMany(script.predictor, questions(3), { orgId: "acme", principal, signal: controller.signal }), []),
    ).rejects.toThrow("stopped by the user");
    expect(script.started).toEqual([]);
    await expect(collect(askMany(script.predictor, questions(1), { orgId: "acme", principal, concurrency: 0 }), [])).rejects.toThrow(
      "concurrency must be an integer >= 1, not 0",
    );
  });

  it("answers through a real service exactly as single predict calls do", async () => {
    const service = createRagService({
      config: {
        stores: { dataDir: mkdtempSync(join(tmpdir(), "docqa-batch-")) },
        embeddings: { provider: "none" },
        logging: { level: "silent" },
      },
    });
    try {
      await service.upsert({
        orgId: "acme",
        principal,
        uploader: principal.userName,
        documents: {
          wifi: { title: "Wi-Fi", content: "The guest Wi-Fi password changes every Monday." },
          parking: { title: "Parking", content: "Visitors park on level minus two of the garage." },
        },
      });
      const batch = [
        { id: "1", question: "When does the guest Wi-Fi password change?" },
        { id: "2", question: "Where do visitors park?" },
        { id: "3", question: "What is the airspeed of an unladen swallow?" },
      ];
      const answers: BatchAnswer<PredictResult>[] = [];
      await collect(askMany(service, batch, { orgId: "acme", principal, concurrency: 3 }), answers);
      expect(answers.map((answer) => answer.outcome)).toEqual(["answered", "answered", "abstained"]);
      for (const [index, answer] of answers.entries()) {
        const single = await service.predict({ orgId: "acme", principal, query: batch[index]?.question as string });
        expect(answer.result?.answer).toEqual(single.answer);
        expect(answer.result?.sources).toEqual(single.sources);
      }
      expect(answers[0]?.result?.answer.callout_answer).toBe("The guest Wi-Fi password changes every Monday. [Source: doc_1]");
    } finally {
      await service.close();
    }
  });
});

describe("isAbstention and batchError", () => {
  it("reads both result shapes and any thrown value", () => {
    expect(isAbstention({ answer: { callout_answer: "Yes. [Source: doc_1]" }, answerMode: "empty-context" })).toBe(true);
    expect(isAbstention({ answer: { callout_answer: "Yes. [Source: doc_1]" }, answer_mode: "extractive" })).toBe(false);
    expect(isAbstention({ answer: { callout_answer: noInformationSentence } })).toBe(true);
    expect(batchError("plain string")).toEqual({ code: "internal_error", message: "plain string" });
  });
});
