/**
 * The in-process language model of `RAG_LLM_PROVIDER=llama-cpp`: one GGUF file loaded once per
 * process by node-llama-cpp (llama.cpp's CPU build), shared by every request of every service
 * that uses the same file and settings.
 *
 * - Off the event loop: node-llama-cpp loads the model and evaluates batches in native threads
 *   (its N-API async workers); JavaScript only receives each sampled token.
 * - Concurrency: one llama.cpp context with `sequences` context sequences (`LOCALLLM_SEQUENCES`),
 *   each a separate KV cache of `contextSize` tokens; node-llama-cpp decodes the tokens of all
 *   busy sequences in one batch, so two answers generate together at nearly the speed of one.
 *   A sequence is leased for one generation and returned afterwards; its KV cache is kept, so a
 *   next prompt that starts the same way (the system prompt) is not evaluated again.
 * - Backpressure: at most `queueSize` calls (`LOCALLLM_QUEUE_SIZE`) wait for a free sequence;
 *   one more is refused at once with `model_busy` (HTTP 503, `Retry-After`): see {@link GenerationAdmission}.
 * - Structured output: a grammar per JSON Schema (`llama.createGrammarForJsonSchema`), compiled once
 *   and cached.
 */
import { resolve } from "node:path";
import { LRUCache } from "lru-cache";
import type { ChatHistoryItem, Llama, LlamaContext, LlamaContextSequence, LlamaGrammar, LlamaModel } from "node-llama-cpp";
import { DocqaError } from "../errors/docqa-error.js";
import { type Logger, silentLogger } from "../logging/logger.js";
import { GenerationAdmission } from "./generation-admission.js";
import { loadNodeLlamaCppModule, type NodeLlamaCppModule } from "./load-provider-module.js";
import { RepetitionGuard } from "./repetition-guard.js";

/** Settings of a {@link LlamaCppRuntime}. */
export interface LlamaCppRuntimeSettings {
  /** `LOCALLLM_MODEL_PATH`: the GGUF file. */
  modelPath: string;
  /** `LOCALLLM_THREADS`: CPU threads; default node-llama-cpp's `cpuMathCores` (physical cores). */
  threads?: number | undefined;
  /** `LOCALLLM_SEQUENCES`: generations at once; default {@link defaultLlamaCppSequences}. */
  sequences?: number | undefined;
  /** `LOCALLLM_QUEUE_SIZE`: calls waiting for a sequence at most; default {@link defaultLlamaCppQueueSize}. */
  queueSize?: number | undefined;
  /** `LOCALLLM_NUM_CTX`: tokens of each sequence's context; default {@link defaultLlamaCppContextSize}. */
  contextSize?: number | undefined;
  /** Receives node-llama-cpp's warnings and errors; default silent. */
  logger?: Logger | undefined;
}

/** Default `LOCALLLM_SEQUENCES` (2): two answers generate together, one per core of a 2-core machine's batch. */
export const defaultLlamaCppSequences = 2;
/** Default `LOCALLLM_QUEUE_SIZE` (16), as `INGESTION_QUEUE_SIZE`: enough for bursts, small enough that a waiting client does not time out. */
export const defaultLlamaCppQueueSize = 16;
/**
 * Default `LOCALLLM_NUM_CTX` for llama-cpp (8192 tokens per sequence): the answer prompt with
 * `MAX_CONTEXT_CHARS` = 16000 characters of sources is about 4,500 tokens, plus the answer. Qwen2.5
 * models are trained for 32,768; the KV cache of the 1.5B model costs 28 KiB per token (28 layers
 * × 2 KV heads × 128 dimensions × K and V × 2 bytes), so two sequences of 8192 take 448 MiB.
 */
export const defaultLlamaCppContextSize = 8192;

/** Compiled grammars kept (one per JSON Schema; docqa uses three). */
const maxCachedGrammars = 32;

/** What is loaded once: the runtime, the model and its context. */
interface LoadedModel {
  module: NodeLlamaCppModule;
  llama: Llama;
  model: LlamaModel;
  context: LlamaContext;
}

/** One message of a conversation to continue. */
export interface LocalChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/** What to generate (see {@link LlamaCppRuntime.generate}). */
export interface LocalGenerationRequest {
  /** The conversation; the model writes the next assistant message. */
  messages: readonly LocalChatMessage[];
  /** JSON Schema the output must follow (grammar-constrained sampling); free text without it. */
  jsonSchema?: Record<string, unknown> | undefined;
  /** Most tokens to generate. */
  maxTokens: number;
  /** Sampling temperature; 0 is greedy decoding. */
  temperature: number;
  /** Nucleus sampling threshold, used when `temperature` is above 0. */
  topP?: number | undefined;
  /** Aborts the generation (or the wait for a sequence); the call then rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
  /** Receives the text as it is generated. */
  onText?: ((text: string) => void) | undefined;
}

/** Why a generation ended, in OpenAI's terms plus `repetition` (stopped by the {@link RepetitionGuard}). */
export type LocalFinishReason = "stop" | "length" | "repetition";

/** What one generation produced. */
export interface LocalGeneration {
  text: string;
  finishReason: LocalFinishReason;
  /** Prompt tokens evaluated (a prefix already in the sequence's KV cache is not evaluated again). */
  inputTokens: number;
  /** Tokens generated. */
  outputTokens: number;
  /** Milliseconds waited for a sequence (and, on the first call, for the model to load). */
  queueMs: number;
  /** Milliseconds from the start of the call to the first generated text; undefined when nothing was generated. */
  firstTextMs: number | undefined;
  /** Milliseconds from the start of the call to its end. */
  totalMs: number;
}

/** Load and queue state, for health and benchmarks. */
export interface LlamaCppRuntimeState {
  loaded: boolean;
  /** Sequences generating. */
  active: number;
  /** Calls waiting for a sequence. */
  waiting: number;
}

/**
 * One model file in this process. Create it with {@link sharedLlamaCppRuntime} so every service of
 * the process shares one copy of the weights.
 */
export class LlamaCppRuntime {
  readonly modelPath: string;
  readonly sequences: number;
  readonly queueSize: number;
  readonly contextSize: number;
  readonly #threads: number | undefined;
  readonly #logger: Logger;
  #loading: Promise<LoadedModel> | undefined;
  #loaded: LoadedModel | undefined;
  readonly #admission: GenerationAdmission;
  readonly #free: LlamaContextSequence[] = [];
  readonly #grammars = new LRUCache<string, Promise<LlamaGrammar>>({ max: maxCachedGrammars });

  constructor(settings: LlamaCppRuntimeSettings) {
    this.modelPath = resolve(settings.modelPath);
    this.sequences = settings.sequences ?? defaultLlamaCppSequences;
    this.queueSize = settings.queueSize ?? defaultLlamaCppQueueSize;
    this.contextSize = settings.contextSize ?? defaultLlamaCppContextSize;
    this.#threads = settings.threads;
    this.#logger = settings.logger ?? silentLogger;
    this.#admission = new GenerationAdmission({ slots: this.sequences, queueSize: this.queueSize });
  }

  /** Current state; never loads anything. */
  state(): LlamaCppRuntimeState {
    return { loaded: this.#loaded !== undefined, active: this.#admission.active, waiting: this.#admission.waiting };
  }

  /**
   * Loads node-llama-cpp, the model and its context, once (a failure is forgotten, so the next call
   * tries again).
   *
   * @throws {DocqaError} `model_unavailable` when node-llama-cpp is missing or the file cannot be loaded.
   */
  async load(): Promise<void> {
    await this.#loadOnce();
  }

  #loadOnce(): Promise<LoadedModel> {
    this.#loading ??= this.#load().then(
      (loaded) => {
        this.#loaded = loaded;
        return loaded;
      },
      (error: unknown) => {
        this.#loading = undefined;
        throw error;
      },
    );
    return this.#loading;
  }

  async #load(): Promise<LoadedModel> {
    const loaded = await loadNodeLlamaCppModule();
    if (!loaded.ok) {
      throw new DocqaError("model_unavailable", `RAG_LLM_PROVIDER is llama-cpp but ${loaded.reason}`, {
        component: "llama-cpp",
        details: { reason: "unreachable", attempts: 1 },
      });
    }
    const module = loaded.module;
    const started = performance.now();
    try {
      // CPU only, and never a build from source at run time: the prebuilt binaries of
      // @node-llama-cpp/<platform> are used, or loading fails with node-llama-cpp's reason.
      const llama = await module.getLlama({
        gpu: false,
        build: "never",
        logLevel: module.LlamaLogLevel.warn,
        logger: (level, message) => {
          if (level === module.LlamaLogLevel.error || level === module.LlamaLogLevel.fatal) {
            this.#logger.error(message.trim(), { component: "llama-cpp" });
          } else if (level === module.LlamaLogLevel.warn) {
            this.#logger.debug(message.trim(), { component: "llama-cpp" });
          }
        },
      });
      const model = await llama.loadModel({ modelPath: this.modelPath });
      const context = await model.createContext({
        sequences: this.sequences,
        contextSize: this.contextSize,
        threads: this.#threads ?? llama.cpuMathCores,
      });
      this.#logger.info("local model loaded", {
        component: "llama-cpp",
        model: this.modelPath,
        sequences: this.sequences,
        context_size: context.contextSize,
        threads: this.#threads ?? llama.cpuMathCores,
        load_ms: Math.round(performance.now() - started),
      });
      return { module, llama, model, context };
    } catch (error) {
      throw new DocqaError(
        "model_unavailable",
        `could not load the GGUF file ${this.modelPath} (${(error as Error).message}): check LOCALLLM_MODEL_PATH, or lower LOCALLLM_NUM_CTX or LOCALLLM_SEQUENCES when memory is short`,
        { component: "llama-cpp", cause: error, details: { reason: "rejected", attempts: 1 } },
      );
    }
  }

  /**
   * Generates the next assistant message of a conversation on a leased context sequence: waits for
   * a free sequence (bounded queue), loads the model on first use, applies the grammar of
   * `jsonSchema`, and stops at `maxTokens`, at the end of the message, or as soon as the output
   * loops ({@link RepetitionGuard}).
   *
   * @throws {DocqaError} `model_busy` (with `retryAfterSeconds`) when `queueSize` calls already wait.
   * @throws {DocqaError} `model_unavailable` when the model cannot be loaded or the schema not turned into a grammar.
   * @throws the signal's reason when `request.signal` aborts.
   */
  async generate(request: LocalGenerationRequest): Promise<LocalGeneration> {
    const started = performance.now();
    const release = await this.#admission.acquire(request.signal);
    let sequence: LlamaContextSequence | undefined;
    try {
      const { module, llama, context } = await this.#loadOnce();
      request.signal?.throwIfAborted();
      sequence = this.#free.pop() ?? context.getSequence();
      const queueMs = performance.now() - started;
      const grammar = request.jsonSchema ? await this.#grammar(llama, request.jsonSchema) : undefined;
      const chat = new module.LlamaChat({ contextSequence: sequence });
      const guard = new RepetitionGuard();
      const stop = new AbortController();
      const signal = request.signal ? AbortSignal.any([request.signal, stop.signal]) : stop.signal;
      const meter = sequence.tokenMeter.getState();
      let firstTextMs: number | undefined;
      try {
        const response = await chat.generateResponse(toChatHistory(request.messages), {
          grammar,
          maxTokens: request.maxTokens,
          temperature: request.temperature,
          ...(request.temperature > 0 && request.topP !== undefined ? { topP: request.topP } : {}),
          signal,
          // A stop of ours (repetition) keeps the text generated so far; the caller's abort throws below.
          stopOnAbortSignal: true,
          onTextChunk: (text) => {
            firstTextMs ??= performance.now() - started;
            request.onText?.(text);
          },
          onToken: (tokens) => {
            if (guard.push(tokens)) stop.abort(new DOMException("the output repeats itself", "AbortError"));
          },
        });
        request.signal?.throwIfAborted();
        const used = sequence.tokenMeter.diff(meter);
        const stopReason = response.metadata.stopReason;
        return {
          text: response.response,
          finishReason: guard.looping ? "repetition" : stopReason === "maxTokens" ? "length" : "stop",
          inputTokens: used.usedInputTokens,
          outputTokens: used.usedOutputTokens,
          queueMs,
          firstTextMs,
          totalMs: performance.now() - started,
        };
      } finally {
        chat.dispose();
      }
    } finally {
      if (sequence) this.#free.push(sequence);
      release();
    }
  }

  /**
   * The grammar that constrains output to `schema` (node-llama-cpp's JSON Schema subset: objects,
   * arrays, strings, numbers, booleans, enums, `const`, `oneOf`, `$defs`), compiled once.
   *
   * @throws {DocqaError} `model_unavailable` (`rejected`) when the schema uses what the grammar cannot express.
   */
  #grammar(llama: Llama, schema: Record<string, unknown>): Promise<LlamaGrammar> {
    const key = JSON.stringify(schema);
    let grammar = this.#grammars.get(key);
    if (!grammar) {
      grammar = llama.createGrammarForJsonSchema(schema as never).catch((error: unknown) => {
        this.#grammars.delete(key);
        throw new DocqaError("model_unavailable", `the JSON Schema cannot be turned into a grammar: ${(error as Error).message}`, {
          component: "llama-cpp",
          cause: error,
          details: { reason: "rejected", attempts: 1 },
        });
      });
      this.#grammars.set(key, grammar);
    }
    return grammar;
  }

  /** Frees the context and the model; waiting calls are refused. A later call loads the model again. */
  async dispose(): Promise<void> {
    this.#admission.rejectWaiting(new DocqaError("model_unavailable", "the local model was closed", { component: "llama-cpp" }));
    const loading = this.#loading;
    this.#loading = undefined;
    this.#loaded = undefined;
    this.#free.length = 0;
    this.#grammars.clear();
    const loaded = await loading?.catch(() => undefined);
    if (!loaded) return;
    await loaded.context.dispose();
    await loaded.model.dispose();
  }
}

const runtimes = new Map<string, LlamaCppRuntime>();

/**
 * The runtime of this process for a model file and settings: created on the first call, the same
 * object afterwards (the model is loaded on its first use, see {@link LlamaCppRuntime.load}).
 */
export function sharedLlamaCppRuntime(settings: LlamaCppRuntimeSettings): LlamaCppRuntime {
  const runtime = new LlamaCppRuntime(settings);
  const key = JSON.stringify([runtime.modelPath, runtime.sequences, runtime.queueSize, runtime.contextSize, settings.threads ?? null]);
  const existing = runtimes.get(key);
  if (existing) return existing;
  runtimes.set(key, runtime);
  return runtime;
}

/** Disposes every shared runtime of this process (for tests and orderly shutdown). */
export async function disposeSharedLlamaCppRuntimes(): Promise<void> {
  const all = [...runtimes.values()];
  runtimes.clear();
  await Promise.all(all.map((runtime) => runtime.dispose()));
}

/**
 * The conversation as node-llama-cpp's chat history, ending with the model turn to generate; it is
 * rendered with the model's own chat template (node-llama-cpp's `"auto"` chat wrapper).
 */
function toChatHistory(messages: readonly LocalChatMessage[]): ChatHistoryItem[] {
  const history = messages.map(
    (message): ChatHistoryItem =>
      message.role === "system"
        ? { type: "system", text: message.content }
        : message.role === "assistant"
          ? { type: "model", response: [message.content] }
          : { type: "user", text: message.content },
  );
  history.push({ type: "model", response: [] });
  return history;
}
