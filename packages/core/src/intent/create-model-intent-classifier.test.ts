/**
 * Intent classifiers: the model classifier with the real `@langchain/openai` client against the
 * wire server (parsing, fallback), and the accuracy of both classifiers on the labelled set.
 *
 * The model classifier's accuracy here is that of a scripted server (it answers the label it is
 * given), so it only proves the plumbing; the rule classifier's accuracy is a real measurement.
 */
import { ChatOpenAI } from "@langchain/openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { evaluateIntentClassifier } from "../evaluation/evaluate-intent-classifier.js";
import { intentExamples } from "../evaluation/intent-examples.js";
import { type OpenAIWireServer, startOpenAIWireServer } from "../testing/openai-wire-server.js";
import { classifyIntent } from "./classify-intent.js";
import { createModelIntentClassifier, createRuleIntentClassifier } from "./create-model-intent-classifier.js";

/** Correct answers of the rule classifier on `intentExamples`, as measured: 99 of 120 (82.5 %). */
const RULE_CLASSIFIER_CORRECT = 99;

let server: OpenAIWireServer;
beforeAll(async () => {
  server = await startOpenAIWireServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
  expect(server.pendingChat()).toBe(0);
});

const model = () => new ChatOpenAI({ model: "gpt-4o-mini", apiKey: "test-key", configuration: { baseURL: server.baseUrl }, maxRetries: 0 });

describe("intentExamples", () => {
  it("holds at least 100 distinct labelled inputs covering every intent", () => {
    expect(intentExamples.length).toBeGreaterThanOrEqual(100);
    expect(new Set(intentExamples.map((example) => example.text.toLowerCase())).size).toBe(intentExamples.length);
    const counts: Record<string, number> = {};
    for (const example of intentExamples) counts[example.intent] = (counts[example.intent] ?? 0) + 1;
    expect(counts).toEqual({
      question: 50,
      greeting: 14,
      small_talk: 14,
      feedback: 14,
      command: 14,
      out_of_scope: 14,
    });
  });
});

describe("createModelIntentClassifier", () => {
  it("returns the model's intent with requires_rag only for questions", async () => {
    server.enqueueChat(
      { type: "output", text: JSON.stringify({ intent: "greeting", confidence: 0.97 }) },
      { type: "output", text: JSON.stringify({ intent: "question", confidence: 0.8 }) },
    );
    const classifier = createModelIntentClassifier(model());
    expect(classifier.name).toBe("model:gpt-4o-mini");
    expect(await classifier.classify("hello there")).toEqual({ intent: "greeting", confidence: 0.97, requires_rag: false });
    expect(await classifier.classify("parking rules")).toEqual({ intent: "question", confidence: 0.8, requires_rag: true });
    const body = server.requests[0]?.body as { tools: { function: { name: string } }[]; messages: { content: string }[] };
    expect(body.tools[0]?.function.name).toBe("intent");
    expect(body.messages[1]?.content).toBe("Message: hello there");
  });

  it("normalises the intent name and clamps or defaults the confidence", async () => {
    server.enqueueChat(
      { type: "content", content: '```json\n{"intent": "Small Talk", "confidence": 1.7}\n```' },
      { type: "output", text: JSON.stringify({ intent: "out-of-scope" }) },
    );
    const classifier = createModelIntentClassifier(model(), { structuredOutputMethod: "jsonMode" });
    expect(await classifier.classify("how are you")).toEqual({ intent: "small_talk", confidence: 1, requires_rag: false });
    expect(await classifier.classify("weather in Oslo")).toEqual({ intent: "out_of_scope", confidence: 0.7, requires_rag: false });
  });

  it("falls back to the rules on an unknown intent, an error or a timeout", async () => {
    server.enqueueChat(
      { type: "output", text: JSON.stringify({ intent: "chitchat", confidence: 0.9 }) },
      { type: "error", status: 503 },
      { type: "output", text: JSON.stringify({ intent: "command", confidence: 0.9 }), delayMs: 2_000 },
    );
    const classifier = createModelIntentClassifier(model(), { resilience: { timeoutMs: 200 } });
    expect(await classifier.classify("thanks")).toEqual(classifyIntent("thanks"));
    expect(await classifier.classify("Good morning")).toEqual(classifyIntent("Good morning"));
    const started = performance.now();
    expect(await classifier.classify("delete my history")).toEqual(classifyIntent("delete my history"));
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(server.requests).toHaveLength(3);
  });

  it("classifies empty text with the rules, without a model call", async () => {
    expect(await createModelIntentClassifier(model()).classify("   ")).toEqual(classifyIntent("   "));
    expect(server.requests).toHaveLength(0);
  });
});

describe("accuracy on the labelled set", () => {
  it("rule classifier: measured accuracy (report)", async () => {
    const evaluation = await evaluateIntentClassifier(createRuleIntentClassifier());
    console.info(
      `rule intent classifier: ${evaluation.correct}/${evaluation.total} = ${(evaluation.accuracy * 100).toFixed(1)} % accuracy, ` +
        `requires_rag right for ${(evaluation.requiresRagAccuracy * 100).toFixed(1)} %\n` +
        Object.entries(evaluation.perIntent)
          .map(([intent, score]) => `  ${intent}: recall ${score.correct}/${score.support}, precision ${score.correct}/${score.predicted}`)
          .join("\n") +
        `\n  errors:\n${evaluation.errors.map((error) => `    "${error.text}" ${error.expected} → ${error.predicted}`).join("\n")}`,
    );
    // The measured value: update it, with the report, when the rules or the set change.
    expect(evaluation.correct).toBe(RULE_CLASSIFIER_CORRECT);
  });

  it("model classifier: the plumbing over the whole set (a scripted server, not a real accuracy)", async () => {
    for (const example of intentExamples) {
      server.enqueueChat({ type: "output", text: JSON.stringify({ intent: example.intent, confidence: 0.9 }) });
    }
    const evaluation = await evaluateIntentClassifier(createModelIntentClassifier(model()));
    expect([evaluation.correct, evaluation.total, evaluation.requiresRagAccuracy]).toEqual([
      intentExamples.length,
      intentExamples.length,
      1,
    ]);
  });
});
