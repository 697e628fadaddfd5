// biome-ignore-all lint/suspicious/noExplicitAny: withStructuredOutput's overloads repeat BaseChatModel's, which use `any`.
/**
 * `ChatLlamaCpp`: a LangChain chat model that runs a GGUF file in this process with node-llama-cpp
 * (`RAG_LLM_PROVIDER=llama-cpp`), so the answerer, query decomposition, the intent classifier,
 * streaming callbacks and the retry layer use it like any other provider.
 *
 * - Messages become the runtime's system, user and assistant messages, rendered with the model's
 *   own chat template.
 * - `withStructuredOutput` constrains sampling with a grammar made from the JSON Schema, whatever
 *   method is asked for (there is no tool-call protocol in process): the output is valid JSON of
 *   the schema unless generation stops early (token limit, repetition).
 * - Generation is bounded: at most `maxTokens` tokens (`LOCALLLM_NUM_PREDICT`), and it stops as
 *   soon as the output loops (`RepetitionGuard`); `response_metadata.finish_reason` says why
 *   it ended (`stop`, `length`, `repetition`).
 * - Each call is one `generate` of the shared {@link LlamaCppRuntime} (a context sequence of its
 *   own, bounded concurrency and queue, `model_busy` when full) and honours the call's `signal`.
 *
 * @langchain/community's `ChatLlamaCpp` is not used: it keeps one chat session per model (no
 * concurrent calls) and has no grammar-constrained structured output.
 */
import { basename } from "node:path";
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import type { BaseLanguageModelInput, StructuredOutputMethodOptions } from "@langchain/core/language_models/base";
import { BaseChatModel, type BaseChatModelCallOptions, type BaseChatModelParams } from "@langchain/core/language_models/chat_models";
import { assembleStructuredOutputPipeline, createContentParser } from "@langchain/core/language_models/structured_output";
import { AIMessage, AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import { type ChatGeneration, ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import type { Runnable } from "@langchain/core/runnables";
import { toJsonSchema } from "@langchain/core/utils/json_schema";
import { isSerializableSchema, type SerializableSchema } from "@langchain/core/utils/standard_schema";
import { type InteropZodType, isInteropZodSchema } from "@langchain/core/utils/types";
import { type LlamaCppRuntime, type LocalChatMessage, type LocalGeneration, sharedLlamaCppRuntime } from "./llama-cpp-runtime.js";

/**
 * Default `LOCALLLM_NUM_PREDICT` for llama-cpp (1024 tokens): an Answer object with a callout and
 * three short lists is 150–500 tokens for Qwen2.5's tokenizer; more is a model that does not stop,
 * which at about 20 tokens/s on two cores would hold a sequence for a minute.
 */
export const defaultLlamaCppMaxTokens = 1024;

/** Constructor fields of {@link ChatLlamaCpp}. */
export interface ChatLlamaCppFields extends BaseChatModelParams {
  /** The shared runtime of the model file; default `sharedLlamaCppRuntime({ modelPath })`. */
  runtime?: LlamaCppRuntime;
  /** `LOCALLLM_MODEL_PATH`, used when `runtime` is not given. */
  modelPath?: string;
  /** Model name in logs and PERF lines; default the file name without `.gguf`. */
  modelName?: string;
  /** `RAG_LLM_TEMP`; default 0 (greedy decoding). */
  temperature?: number | undefined;
  /** `RAG_LLM_TOP_P`, used when the temperature is above 0; default 1 (off). */
  topP?: number | undefined;
  /** `LOCALLLM_NUM_PREDICT`; default {@link defaultLlamaCppMaxTokens}. */
  maxTokens?: number | undefined;
}

/** Call options of {@link ChatLlamaCpp}. */
export interface ChatLlamaCppCallOptions extends BaseChatModelCallOptions {
  /** JSON Schema the output must follow (set by `withStructuredOutput`). */
  responseSchema?: Record<string, unknown>;
  /** Overrides the model's `maxTokens` for this call. */
  maxTokens?: number;
}

/**
 * A chat model backed by an in-process GGUF model.
 *
 * @example
 * ```ts
 * const model = new ChatLlamaCpp({ modelPath: ".models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf" });
 * const reply = await model.invoke([new HumanMessage("Say hello")]);
 * ```
 */
export class ChatLlamaCpp extends BaseChatModel<ChatLlamaCppCallOptions, AIMessageChunk> {
  readonly runtime: LlamaCppRuntime;
  readonly model: string;
  readonly temperature: number;
  readonly topP: number;
  readonly maxTokens: number;

  static override lc_name(): string {
    return "ChatLlamaCpp";
  }

  constructor(fields: ChatLlamaCppFields) {
    super(fields);
    if (!fields.runtime && !fields.modelPath) throw new TypeError("ChatLlamaCpp needs a runtime or a modelPath");
    this.runtime = fields.runtime ?? sharedLlamaCppRuntime({ modelPath: fields.modelPath as string });
    this.model = fields.modelName ?? basename(this.runtime.modelPath).replace(/\.gguf$/i, "");
    this.temperature = fields.temperature ?? 0;
    this.topP = fields.topP ?? 1;
    this.maxTokens = fields.maxTokens ?? defaultLlamaCppMaxTokens;
  }

  override _llmType(): string {
    return "llama-cpp";
  }

  override get callKeys(): string[] {
    return [...super.callKeys, "responseSchema", "maxTokens"];
  }

  override async _generate(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    _runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    const generation = await this.#generate(messages, options);
    const message = new AIMessage({
      content: generation.text,
      response_metadata: responseMetadata(generation, this.model),
      usage_metadata: usageMetadata(generation),
    });
    const result: ChatGeneration = { text: generation.text, message, generationInfo: { finish_reason: generation.finishReason } };
    return { generations: [result], llmOutput: { tokenUsage: usageMetadata(generation) } };
  }

  override async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    // node-llama-cpp reports text through a callback; a small queue turns it into this iterator.
    const pending: string[] = [];
    let wake: (() => void) | undefined;
    let finished = false;
    let failure: unknown;
    let generation: LocalGeneration | undefined;
    const stop = new AbortController();
    const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
    void this.#generate(messages, { ...options, signal }, (text) => {
      pending.push(text);
      wake?.();
    })
      .then(
        (result) => {
          generation = result;
        },
        (error: unknown) => {
          failure = error;
        },
      )
      .finally(() => {
        finished = true;
        wake?.();
      });
    try {
      while (true) {
        const text = pending.shift();
        if (text !== undefined) {
          const chunk = new ChatGenerationChunk({ text, message: new AIMessageChunk({ content: text }) });
          yield chunk;
          await runManager?.handleLLMNewToken(text, undefined, undefined, undefined, undefined, { chunk });
          continue;
        }
        if (finished) break;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
      if (failure !== undefined) throw failure;
      if (generation) {
        yield new ChatGenerationChunk({
          text: "",
          message: new AIMessageChunk({
            content: "",
            response_metadata: responseMetadata(generation, this.model),
            usage_metadata: usageMetadata(generation),
          }),
          generationInfo: { finish_reason: generation.finishReason },
        });
      }
    } finally {
      // The consumer stopped early (or failed): end the generation and free the sequence.
      if (!finished) stop.abort(new DOMException("the stream's consumer stopped reading", "AbortError"));
    }
  }

  /** Runs one generation on the shared runtime. */
  #generate(messages: BaseMessage[], options: this["ParsedCallOptions"], onText?: (text: string) => void): Promise<LocalGeneration> {
    return this.runtime.generate({
      messages: messages.map(toLocalMessage),
      jsonSchema: options.responseSchema,
      maxTokens: options.maxTokens ?? this.maxTokens,
      temperature: this.temperature,
      topP: this.topP,
      signal: options.signal,
      onText,
    });
  }

  /**
   * Structured output by a grammar made from the schema; `config.method` is ignored (every method
   * means the same here). With `includeRaw`, a reply that is not valid JSON (cut by the token limit
   * or the repetition guard) gives `parsed: null` and the raw message.
   */
  override withStructuredOutput<RunOutput extends Record<string, any> = Record<string, any>>(
    outputSchema: InteropZodType<RunOutput> | SerializableSchema<RunOutput> | Record<string, any>,
    config?: StructuredOutputMethodOptions<false>,
  ): Runnable<BaseLanguageModelInput, RunOutput>;
  override withStructuredOutput<RunOutput extends Record<string, any> = Record<string, any>>(
    outputSchema: InteropZodType<RunOutput> | SerializableSchema<RunOutput> | Record<string, any>,
    config?: StructuredOutputMethodOptions<true>,
  ): Runnable<BaseLanguageModelInput, { raw: BaseMessage; parsed: RunOutput }>;
  override withStructuredOutput<RunOutput extends Record<string, any> = Record<string, any>>(
    outputSchema: InteropZodType<RunOutput> | SerializableSchema<RunOutput> | Record<string, any>,
    config?: StructuredOutputMethodOptions<boolean>,
  ): Runnable<BaseLanguageModelInput, RunOutput> | Runnable<BaseLanguageModelInput, { raw: BaseMessage; parsed: RunOutput }> {
    const jsonSchema = (
      isInteropZodSchema(outputSchema) || isSerializableSchema(outputSchema) ? toJsonSchema(outputSchema) : outputSchema
    ) as Record<string, unknown>;
    const model = this.withConfig({
      responseSchema: jsonSchema,
      ls_structured_output_format: { kwargs: { method: "jsonSchema" }, schema: jsonSchema },
    });
    return assembleStructuredOutputPipeline(
      model,
      createContentParser(outputSchema),
      config?.includeRaw,
      config?.includeRaw ? "StructuredOutputRunnable" : "ChatLlamaCppStructuredOutput",
    );
  }
}

/**
 * A LangChain message as a message of the runtime: system messages stay system messages, AI
 * messages become assistant messages, every other message (human, tool) a user message. Content
 * arrays keep their text parts.
 */
export function toLocalMessage(message: BaseMessage): LocalChatMessage {
  const content = textOf(message.content);
  const type = message.getType();
  return { role: type === "system" ? "system" : type === "ai" ? "assistant" : "user", content };
}

function textOf(content: BaseMessage["content"]): string {
  if (typeof content === "string") return content;
  return content.map((block) => (block.type === "text" && typeof block.text === "string" ? block.text : "")).join("");
}

function responseMetadata(generation: LocalGeneration, model: string): Record<string, unknown> {
  return {
    model_provider: "llama-cpp",
    model_name: model,
    finish_reason: generation.finishReason,
    queue_ms: Math.round(generation.queueMs),
  };
}

function usageMetadata(generation: LocalGeneration) {
  return {
    input_tokens: generation.inputTokens,
    output_tokens: generation.outputTokens,
    total_tokens: generation.inputTokens + generation.outputTokens,
  };
}
