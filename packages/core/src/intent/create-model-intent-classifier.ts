/**
 * Intent detection for `POST /query` with a language model, same result shape as the rule
 * classifier (`classifyIntent`): `intent`, `confidence` in [0, 1], `requires_rag` (true only for
 * `question`). Any model failure (unreachable, timeout, output that is not one of the intents)
 * falls back to the rule classifier, so `/query` never fails because of the model.
 */
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { type ResiliencePolicy, resiliencePolicy } from "../chat-models/call-with-resilience.js";
import { defaultStructuredOutputMethod, invokeStructured, type StructuredOutputMethod } from "../chat-models/invoke-structured.js";
import { DocqaError } from "../errors/docqa-error.js";
import { type Logger, silentLogger } from "../logging/logger.js";
import { intentDescriptions, intentJsonSchema, intentMessages } from "../prompts/prompts.js";
import { classifyIntent, type Intent, type IntentResult } from "./classify-intent.js";

/** Classifies the intent of a text. */
export interface IntentClassifier {
  /** `rules` or `model:<model name>`. */
  readonly name: string;
  classify(text: string, options?: { signal?: AbortSignal | undefined }): Promise<IntentResult>;
}

/** The rule classifier (`classifyIntent`) as an {@link IntentClassifier}. */
export function createRuleIntentClassifier(): IntentClassifier {
  return { name: "rules", classify: async (text) => classifyIntent(text) };
}

/** Settings of {@link createModelIntentClassifier}. */
export interface ModelIntentClassifierSettings {
  /** Model name for logs; default the model's `model` field. */
  modelName?: string;
  /** Structured output method; default `defaultStructuredOutputMethod(model)`. */
  structuredOutputMethod?: StructuredOutputMethod;
  /** Timeouts and retries; default 10 s per attempt and no retry (the rules answer instead). */
  resilience?: Partial<ResiliencePolicy>;
  /** Used when the model fails; default the rule classifier. */
  fallback?: IntentClassifier;
  logger?: Logger;
}

const intents = Object.keys(intentDescriptions) as Intent[];
const confidenceWhenMissing = 0.7;

/**
 * Creates the model intent classifier. Empty text is classified by the fallback without a model
 * call. A missing or non-numeric confidence becomes 0.7; values outside [0, 1] are clamped.
 *
 * @example
 * ```ts
 * const classifier = createModelIntentClassifier(model);
 * await classifier.classify("hello there"); // { intent: "greeting", confidence: 0.97, requires_rag: false }
 * ```
 */
export function createModelIntentClassifier(model: BaseChatModel, settings: ModelIntentClassifierSettings = {}): IntentClassifier {
  const modelName = settings.modelName ?? (model as unknown as { model?: string }).model ?? model._llmType();
  const fallback = settings.fallback ?? createRuleIntentClassifier();
  const policy = resiliencePolicy({ timeoutMs: 10_000, maxRetries: 0, ...settings.resilience });
  const logger = settings.logger ?? silentLogger;
  const method = settings.structuredOutputMethod ?? defaultStructuredOutputMethod(model);
  return {
    name: `model:${modelName}`,
    async classify(text, options = {}) {
      if (text.trim() === "") return fallback.classify(text, options);
      try {
        const output = await invokeStructured({
          model,
          schema: intentJsonSchema,
          name: "intent",
          method,
          messages: intentMessages(text),
          policy,
          component: "intent",
          modelName,
          signal: options.signal,
        });
        const result = output.candidates.map(intentOf).find((found) => found !== undefined);
        if (!result) throw new Error("the model's output names none of the intents");
        return result;
      } catch (error) {
        if (options.signal?.aborted) throw error;
        const reason = DocqaError.isInstance(error) ? error.publicMessage : (error as Error).message;
        logger.warn(`intent model failed; using the rules: ${reason}`, { component: "intent", model: modelName });
        return fallback.classify(text, options);
      }
    },
  };
}

/** Reads `{ intent, confidence }` from a candidate output (an object or its JSON text). */
function intentOf(candidate: unknown): IntentResult | undefined {
  let value = candidate;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value.replace(/^```(?:json)?\s*|\s*```$/gu, "").trim());
    } catch {
      return undefined;
    }
  }
  if (typeof value !== "object" || value === null) return undefined;
  const record = value as { intent?: unknown; confidence?: unknown };
  const name =
    typeof record.intent === "string"
      ? record.intent
          .trim()
          .toLowerCase()
          .replace(/[\s-]+/g, "_")
      : "";
  const intent = intents.find((candidateIntent) => candidateIntent === name);
  if (!intent) return undefined;
  const raw = typeof record.confidence === "number" ? record.confidence : Number.parseFloat(String(record.confidence));
  const confidence = Number.isFinite(raw) ? Math.min(1, Math.max(0, raw)) : confidenceWhenMissing;
  return { intent, confidence, requires_rag: intent === "question" };
}
