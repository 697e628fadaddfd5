/**
 * The contract a chat model passes with a real language model behind it, the same for every
 * provider (the in-process llama-cpp model, an OpenAI-compatible server such as `llama-server`):
 * docqa's own calls, on a handbook written for the test, must work through it.
 * - the Answer object: valid JSON of the schema whose callout states the fact of the sources;
 * - the streamed Answer: tokens arrive before the call resolves and add up to the output;
 * - query decomposition of a compound question, by the model;
 * - the rewrite of a follow-up into a standalone query, by the model;
 * - intent detection of a greeting and a question, by the model (not the rule fallback).
 * Structured output uses the method docqa would choose (`defaultStructuredOutputMethod`, with
 * detection for a model marked by `detectStructuredOutputMethod`).
 *
 * @example
 * ```ts
 * import { describeChatModelContract } from "@docqa/core/contract";
 * describeChatModelContract("my server", async () => ({ model: new ChatOpenAI({ ... }), close: async () => {} }));
 * ```
 */
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repairAnswer } from "../answering/repair-answer.js";
import { resiliencePolicy } from "../chat-models/call-with-resilience.js";
import { defaultStructuredOutputMethod, invokeStructured } from "../chat-models/invoke-structured.js";
import { createModelIntentClassifier } from "../intent/create-model-intent-classifier.js";
import { rewriteFollowUp } from "../memory/rewrite-follow-up.js";
import { answerJsonSchema, answerMessages } from "../prompts/prompts.js";
import { decomposeQuestion } from "../query-planning/decompose-question.js";
import { handbookContext, handbookQuestion } from "../testing/handbook-context.js";

/** What a chat model contract factory returns. */
export interface ChatModelContractSubject {
  /** The model under test. */
  model: BaseChatModel;
  /** Releases the subject (frees the model, stops a server it started). */
  close(): Promise<void>;
}

/** Options of {@link describeChatModelContract}. */
export interface ChatModelContractOptions {
  /** Per-test timeout in milliseconds (a small model on two cores writes 15–25 tokens/s); default 300,000. */
  timeoutMs?: number;
  /** Skip every test, with this reason in the test name (for example: no model file here). */
  skip?: string | undefined;
}

/**
 * Registers the chat model contract. `create` is called once, before the first test.
 */
export function describeChatModelContract(
  name: string,
  create: () => Promise<ChatModelContractSubject>,
  options: ChatModelContractOptions = {},
): void {
  const timeoutMs = options.timeoutMs ?? 300_000;
  describe(`chat model contract: ${name}`, () => {
    if (options.skip !== undefined) {
      it.skip(`skipped: ${options.skip}`, () => {});
      return;
    }
    let subject: ChatModelContractSubject;
    beforeAll(async () => {
      subject = await create();
    }, timeoutMs);
    afterAll(async () => {
      await subject?.close();
    }, timeoutMs);

    const policy = resiliencePolicy({ timeoutMs, maxRetries: 0 });
    const askForAnswer = (onToken?: (text: string) => void) =>
      invokeStructured({
        model: subject.model,
        schema: answerJsonSchema,
        name: "answer",
        method: defaultStructuredOutputMethod(subject.model),
        messages: answerMessages({ question: handbookQuestion, contextText: handbookContext().text }),
        policy,
        component: "contract",
        modelName: name,
        onToken,
      });

    it(
      "answers with the Answer object: valid JSON of the schema whose callout states the fact of the sources",
      async () => {
        const output = await askForAnswer();
        const repaired = repairAnswer(output.candidates[0]);
        if (!repaired.ok) throw new Error(`not an Answer: ${repaired.detail}; output ${JSON.stringify(output.candidates)}`);
        expect(repaired.repairs.filter((repair) => repair !== "missing_fields")).toEqual([]);
        expect(repaired.answer.callout_answer).toMatch(/\b25\b|twenty-five/i);
      },
      timeoutMs,
    );

    it(
      "streams the Answer: several tokens arrive before the call resolves, and together they are the output",
      async () => {
        const tokens: string[] = [];
        let resolved = false;
        let tokensBeforeResolve = 0;
        const output = await askForAnswer((text) => {
          tokens.push(text);
          if (!resolved) tokensBeforeResolve++;
        }).finally(() => {
          resolved = true;
        });
        expect(tokensBeforeResolve).toBeGreaterThan(5);
        expect(tokensBeforeResolve).toBe(tokens.length);
        const streamed = repairAnswer(tokens.join(""));
        const returned = repairAnswer(output.candidates[0]);
        expect(returned.ok).toBe(true);
        expect(streamed.ok && streamed.answer).toEqual(returned.ok && returned.answer);
      },
      timeoutMs,
    );

    it(
      "splits a compound question into sub-queries with the model",
      async () => {
        const decomposition = await decomposeQuestion("What is the dental plan, and how do I request parental leave?", {
          maxSubqueries: 5,
          model: subject.model,
          modelName: name,
          resilience: { timeoutMs, maxRetries: 0 },
        });
        expect(decomposition.modelError).toBeUndefined();
        expect(decomposition.method).toBe("model");
        expect(decomposition.subqueries.length).toBeGreaterThanOrEqual(2);
        const text = decomposition.subqueries.join(" | ").toLowerCase();
        expect(text).toContain("dental");
        expect(text).toContain("parental leave");
      },
      timeoutMs,
    );

    it(
      "rewrites a follow-up into a standalone query with the model",
      async () => {
        const history = [
          {
            question: "How many vacation days do full-time employees get?",
            answer: "Full-time employees receive 25 vacation days per year [Source: doc_1].",
            createdAt: Date.now(),
          },
        ];
        const rewritten = await rewriteFollowUp("And part-time employees?", history, { model: subject.model });
        expect(rewritten.method).toBe("model");
        expect(rewritten.query.toLowerCase()).toContain("part-time");
        expect(rewritten.query.toLowerCase()).toContain("vacation");
      },
      timeoutMs,
    );

    it(
      "detects intents with the model: a greeting and a question",
      async () => {
        const failures: string[] = [];
        const classifier = createModelIntentClassifier(subject.model, {
          modelName: name,
          resilience: { timeoutMs, maxRetries: 0 },
          fallback: {
            name: "none",
            classify: async (text) => {
              failures.push(text);
              return { intent: "out_of_scope", confidence: 0, requires_rag: false };
            },
          },
        });
        const greeting = await classifier.classify("Hello there, good morning!");
        const question = await classifier.classify("How many vacation days do employees get per year?");
        expect(failures).toEqual([]);
        expect([greeting.intent, question.intent, question.requires_rag]).toEqual(["greeting", "question", true]);
      },
      timeoutMs,
    );
  });
}
