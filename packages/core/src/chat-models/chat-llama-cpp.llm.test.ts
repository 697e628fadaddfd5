/**
 * The in-process model (`RAG_LLM_PROVIDER=llama-cpp`) with a real GGUF file: Qwen2.5-Coder-1.5B-Instruct
 * Q4_K_M from `npm run models:test-llm`. The chat model contract (Answer JSON, streaming,
 * decomposition, follow-up rewrite, intents), then what is particular to running in process:
 * grammar-constrained output, bounded concurrency with a queue and `model_busy`, aborts that free
 * their sequence, and the repetition guard. Part of `npm run test:llm`; skipped with a message
 * without the model file, failing in CI (`CI=true`).
 */
import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import { afterAll, describe, expect, it } from "vitest";
import { describeChatModelContract } from "../contract/describe-chat-model-contract.js";
import { DocqaError } from "../errors/docqa-error.js";
import { isContinuousIntegration } from "../testing/shared-data.js";
import { testLanguageModelPath } from "../testing/test-language-models.js";
import { ChatLlamaCpp } from "./chat-llama-cpp.js";
import { disposeSharedLlamaCppRuntimes, LlamaCppRuntime } from "./llama-cpp-runtime.js";

const modelPath = testLanguageModelPath("qwen2.5-coder-1.5b");
const missing =
  modelPath === undefined && !isContinuousIntegration()
    ? "no .models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf: run npm run models:test-llm"
    : undefined;

function requiredModelPath(): string {
  if (!modelPath) throw new Error("the test model is missing: run npm run models:test-llm");
  return modelPath;
}

afterAll(() => disposeSharedLlamaCppRuntimes());

describeChatModelContract(
  "llama-cpp in process, Qwen2.5-Coder-1.5B-Instruct Q4_K_M",
  async () => ({ model: new ChatLlamaCpp({ modelPath: requiredModelPath() }), close: async () => {} }),
  { skip: missing },
);

describe.skipIf(missing !== undefined)("ChatLlamaCpp with a real model", () => {
  const ask = [new SystemMessage("Answer in one short sentence."), new HumanMessage("What is the capital of France?")];

  it("answers plain text, streams it as it is generated, and reports tokens and the finish reason", async () => {
    const model = new ChatLlamaCpp({ modelPath: requiredModelPath(), maxTokens: 40 });
    const chunks: string[] = [];
    let final: Record<string, unknown> = {};
    for await (const chunk of await model.stream(ask)) {
      if (typeof chunk.content === "string" && chunk.content !== "") chunks.push(chunk.content);
      if (chunk.response_metadata.finish_reason) final = { ...chunk.response_metadata, usage: chunk.usage_metadata };
    }
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.join("")).toMatch(/Paris/);
    expect(final).toMatchObject({ model_provider: "llama-cpp", finish_reason: "stop" });
    const usage = final.usage as { input_tokens: number; output_tokens: number };
    expect(usage.output_tokens).toBeGreaterThan(2);
    const reply = await model.invoke(ask);
    expect(reply.content).toBe(chunks.join(""));
  });

  it("constrains structured output to the schema with a grammar: an enum the prompt does not mention", async () => {
    const model = new ChatLlamaCpp({ modelPath: requiredModelPath(), maxTokens: 60 });
    const schema = {
      type: "object",
      properties: { colour: { type: "string", enum: ["vermilion", "cerulean", "viridian"] }, certain: { type: "boolean" } },
      required: ["colour", "certain"],
      additionalProperties: false,
    };
    const structured = model.withStructuredOutput(schema, { includeRaw: true });
    const { parsed, raw } = await structured.invoke([new HumanMessage("What colour is the sky on a clear day?")]);
    expect(Object.keys(parsed).sort()).toEqual(["certain", "colour"]);
    expect(["vermilion", "cerulean", "viridian"]).toContain(parsed.colour);
    expect(typeof parsed.certain).toBe("boolean");
    expect(JSON.parse(String(raw.content))).toEqual(parsed);
  });

  it("ends with finish_reason length at maxTokens", async () => {
    const model = new ChatLlamaCpp({ modelPath: requiredModelPath(), maxTokens: 5 });
    const reply = await model.invoke([new HumanMessage("Count from one to one hundred in words, separated by commas.")]);
    expect(reply.response_metadata).toMatchObject({ finish_reason: "length" });
    expect(reply.usage_metadata?.output_tokens).toBe(5);
  });

  it("stops a looping generation early with finish_reason repetition", async () => {
    const model = new ChatLlamaCpp({ modelPath: requiredModelPath(), maxTokens: 600 });
    const reply = await model.invoke([
      new HumanMessage('Write the word "apple" five hundred times, separated by spaces, and nothing else.'),
    ]);
    expect(reply.response_metadata).toMatchObject({ finish_reason: "repetition" });
    expect(reply.usage_metadata?.output_tokens).toBeLessThan(60);
  });

  it("runs `sequences` calls at once, queues the next, refuses one more with model_busy, and frees an aborted call's sequence", async () => {
    // A runtime of its own: one sequence, a queue of one.
    const runtime = new LlamaCppRuntime({ modelPath: requiredModelPath(), sequences: 1, queueSize: 1, contextSize: 1024 });
    try {
      const model = new ChatLlamaCpp({ runtime, maxTokens: 24 });
      await runtime.load();
      const running = model.invoke(ask);
      const queued = model.invoke(ask);
      const refused = await model.invoke(ask).catch((error: unknown) => error);
      expect(DocqaError.isInstance(refused) && refused.code).toBe("model_busy");
      expect((refused as DocqaError).retryAfterSeconds).toBeGreaterThanOrEqual(1);
      expect(runtime.state()).toEqual({ loaded: true, active: 1, waiting: 1 });
      expect(String((await running).content)).toMatch(/Paris/);
      expect(String((await queued).content)).toMatch(/Paris/);

      const controller = new AbortController();
      const aborted = model.invoke([new HumanMessage("Tell a long story about a lighthouse keeper.")], { signal: controller.signal });
      setTimeout(() => controller.abort(new Error("client went away")), 300);
      await expect(aborted).rejects.toThrow("client went away");
      expect(runtime.state()).toEqual({ loaded: true, active: 0, waiting: 0 });
      expect(String((await model.invoke(ask)).content)).toMatch(/Paris/);
    } finally {
      await runtime.dispose();
    }
  });
});
