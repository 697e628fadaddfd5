/**
 * Query decomposition (spec `USE_QUERY_DECOMPOSITION`, `QUERY_DECOMPOSITION_N`): a question
 * that asks several things is split into sub-queries, each retrieved on its own (planned by the
 * `plan-queries` stage, retrieved by the `retrieve-candidates` stage), so that a document answering only one part is not crowded out of the
 * top-k by documents answering another.
 *
 * Simple questions do not pay for decomposition. The rule ({@link splitQuestion}, pure and
 * deterministic) finds the clauses of a question:
 * 1. it is cut after `?`, `!` and `;`, and at line breaks;
 * 2. each piece is cut before a coordinating word (`and`, `but`, `or`, `also`, `plus`, `then`,
 *    optionally followed by `also`) when the next word starts a new question or request
 *    (`what`, `how`, `why`, `when`, `where`, `who`, `which`, `is`, `are`, `do`, `does`, `can`,
 *    `should`, `list`, `explain`, `tell me`, ...), and before every `and also` / `as well as`
 *    that follows a comma;
 * 3. pieces of fewer than two words ("Hi", "Thanks") are dropped, and duplicates removed.
 *
 * A question is a single clause ({@link isSingleClause}) when the rule finds at most one piece:
 * "What is the difference between vacation and sick leave?" is one clause (the `and` joins
 * nouns); "How many vacation days do I get and how do I request them?" is two. For a single
 * clause, no model is called and no sub-query is retrieved.
 *
 * Otherwise, with a model, the model splits the question (prompt `decompositionMessages`); if
 * the model fails or returns nothing usable, the rule's pieces are the sub-queries.
 */
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { type ResiliencePolicy, resiliencePolicy } from "../chat-models/call-with-resilience.js";
import { defaultStructuredOutputMethod, invokeStructured, type StructuredOutputMethod } from "../chat-models/invoke-structured.js";
import { DocqaError } from "../errors/docqa-error.js";
import { type Logger, silentLogger } from "../logging/logger.js";
import type { PlannedQuery, PredictState, RetrievalState } from "../pipeline/request-state.js";
import type { Stage } from "../pipeline/stage.js";
import { decompositionJsonSchema, decompositionMessages } from "../prompts/prompts.js";
import { normalizeQuery } from "../retrieval/normalize-query.js";

const questionStarters =
  "what|how|why|when|where|who|whom|whose|which|is|are|was|were|do|does|did|can|could|should|would|will|may|must|has|have|had|list|describe|explain|tell me|show me|give me|compare|summari[sz]e|define";
const conjunctionBeforeQuestion = new RegExp(
  `(?:,\\s*|\\s+)(?:and|but|or|also|plus|then)\\s+(?:also\\s+)?(?=(?:${questionStarters})\\b)`,
  "giu",
);
const listContinuation = /,\s*(?:and also|as well as)\s+/giu;

/**
 * The clauses of a question by the documented rule (module comment), trimmed, without trailing
 * punctuation; at most `maxParts`.
 *
 * @example
 * ```ts
 * splitQuestion("How many vacation days do I get and how do I request them?");
 * // ["How many vacation days do I get", "how do I request them"]
 * ```
 */
export function splitQuestion(question: string, maxParts: number = Number.POSITIVE_INFINITY): string[] {
  const parts: string[] = [];
  const seen = new Set<string>();
  for (const sentence of question.normalize("NFKC").split(/(?<=[?!;])|\r?\n/u)) {
    for (const clause of sentence.replace(conjunctionBeforeQuestion, "\u0000").replace(listContinuation, "\u0000").split("\u0000")) {
      const cleaned = clause
        .replace(/\s+/gu, " ")
        .replace(/^[\s,;:.!?-]+|[\s,;:.!?-]+$/gu, "")
        .trim();
      if (cleaned.split(" ").length < 2) continue;
      const key = cleaned.toLowerCase();
      if (seen.has(key)) continue;
      seen.add(key);
      parts.push(cleaned);
      if (parts.length >= maxParts) return parts;
    }
  }
  return parts;
}

/** True when the question is a single clause by the documented rule: decomposition is skipped. */
export function isSingleClause(question: string): boolean {
  return splitQuestion(question, 2).length <= 1;
}

/** Settings of {@link decomposeQuestion}. */
export interface DecomposeSettings {
  /** `QUERY_DECOMPOSITION_N`: most sub-queries. */
  maxSubqueries: number;
  /** The chat model; without one the rule's clauses are the sub-queries. */
  model?: BaseChatModel | undefined;
  /** Model name for errors; default the model's `model` field. */
  modelName?: string;
  /** Structured output method; default `defaultStructuredOutputMethod(model)`. */
  structuredOutputMethod?: StructuredOutputMethod;
  /** Timeouts and retries of the model call; default 10 s per attempt, one retry. */
  resilience?: Partial<ResiliencePolicy>;
  signal?: AbortSignal | undefined;
  logger?: Logger;
}

/** Result of {@link decomposeQuestion}. */
export interface Decomposition {
  /**
   * Sub-queries to retrieve, in addition to the question itself; empty when the question is a
   * single clause (or the model found a single need).
   */
  subqueries: string[];
  /** `single-clause` (skipped), `model`, or `rule` (no model, or the model failed). */
  method: "single-clause" | "model" | "rule";
  /** Why the model was not used although configured; undefined otherwise. */
  modelError?: string | undefined;
}

/**
 * Decomposes a question into at most `maxSubqueries` sub-queries (see the module comment).
 * Never throws for model failures: it falls back to the rule. Rethrows the caller's abort.
 */
export async function decomposeQuestion(question: string, settings: DecomposeSettings): Promise<Decomposition> {
  const clauses = splitQuestion(question, Math.max(1, settings.maxSubqueries));
  if (clauses.length <= 1 || settings.maxSubqueries < 2) return { subqueries: [], method: "single-clause" };
  if (!settings.model) return { subqueries: clauses, method: "rule" };
  const logger = settings.logger ?? silentLogger;
  const modelName = settings.modelName ?? (settings.model as unknown as { model?: string }).model ?? settings.model._llmType();
  try {
    const output = await invokeStructured({
      model: settings.model,
      schema: decompositionJsonSchema,
      name: "subqueries",
      method: settings.structuredOutputMethod ?? defaultStructuredOutputMethod(settings.model),
      messages: decompositionMessages(question, settings.maxSubqueries),
      policy: resiliencePolicy({ timeoutMs: 10_000, maxRetries: 1, ...settings.resilience }),
      component: "decomposition",
      modelName,
      signal: settings.signal,
    });
    const subqueries = output.candidates.map(subqueriesOf).find((found) => found !== undefined);
    if (subqueries === undefined) throw new Error("the model's output holds no list of sub-queries");
    const seen = new Set<string>();
    const unique = subqueries
      .filter((query) => !seen.has(query.toLowerCase()) && seen.add(query.toLowerCase()))
      .slice(0, settings.maxSubqueries);
    return { subqueries: unique.length <= 1 ? [] : unique, method: "model" };
  } catch (error) {
    if (settings.signal?.aborted) throw error;
    const reason = DocqaError.isInstance(error) ? error.publicMessage : (error as Error).message;
    logger.warn(`query decomposition by the model failed; using the rule: ${reason}`, { component: "decomposition" });
    return { subqueries: clauses, method: "rule", modelError: reason };
  }
}

/** The sub-queries in a candidate output: `{ subqueries: [...] }`, a bare list, or JSON text of either. */
function subqueriesOf(candidate: unknown): string[] | undefined {
  let value = candidate;
  if (typeof value === "string") {
    const text = value.replace(/^```(?:json)?\s*|\s*```$/gu, "").trim();
    try {
      value = JSON.parse(text);
    } catch {
      return undefined;
    }
  }
  const list = Array.isArray(value) ? value : (value as { subqueries?: unknown } | null)?.subqueries;
  if (!Array.isArray(list)) return undefined;
  const queries = list.filter((item): item is string => typeof item === "string").map((item) => item.trim());
  const kept = queries.filter((item) => item !== "");
  return kept.length > 0 ? kept : undefined;
}

/**
 * Stage `plan` (spec "Optional query decomposition", `USE_QUERY_DECOMPOSITION`): the question is
 * always retrieved for, with `RETRIEVER_TOP_K`; a compound question is also split into at most
 * `QUERY_DECOMPOSITION_N` sub-queries (by the chat model, else by the clause rule; single-clause
 * questions skip it), each retrieved with `SUBQUERY_TOP_K`.
 *
 * Plans the query alone (the `search` pipeline). Writes `queries`.
 */
export const planQuery: Stage<RetrievalState> = {
  name: "plan",
  phase: "retrieval",
  run(state) {
    state.queries = [{ text: state.query, topK: state.settings.retrieverTopK, kind: "question" }];
  },
};

/** Plans the question and its sub-queries (the `predict` pipeline). Writes `queries` and `subqueries`. */
export const planQueries: Stage<PredictState> = {
  name: "plan",
  phase: "retrieval",
  async run(state, runtime) {
    const { config } = runtime;
    const queries: PlannedQuery[] = [{ text: state.query, topK: state.settings.retrieverTopK, kind: "question" }];
    if (config.retrieval.useQueryDecomposition) {
      const model = runtime.chatModel.status === "ready" ? runtime.chatModel : undefined;
      const decomposition = await decomposeQuestion(state.query, {
        model: model?.model,
        modelName: model?.modelName,
        structuredOutputMethod: runtime.structuredOutputMethod,
        maxSubqueries: config.retrieval.queryDecompositionN,
        resilience: { timeoutMs: runtime.auxiliaryTimeoutMs, maxRetries: Math.min(1, config.models.maxRetries) },
        signal: state.signal,
        logger: runtime.logger,
      });
      state.subqueries = distinctSubqueries(decomposition.subqueries, state.query, config.retrieval.maxQueryChars);
      for (const text of state.subqueries) queries.push({ text, topK: config.retrieval.subqueryTopK, kind: "subquery" });
    }
    state.queries = queries;
  },
};

/**
 * The sub-queries worth retrieving: normalised, non-empty, at most `maxChars` long, neither the
 * question itself nor a repeat (case-insensitive).
 */
export function distinctSubqueries(subqueries: readonly string[], question: string, maxChars: number): string[] {
  const seen = new Set([question.toLowerCase()]);
  const kept: string[] = [];
  for (const subquery of subqueries) {
    const text = normalizeQuery(subquery).slice(0, maxChars);
    if (text === "" || seen.has(text.toLowerCase())) continue;
    seen.add(text.toLowerCase());
    kept.push(text);
  }
  return kept;
}
