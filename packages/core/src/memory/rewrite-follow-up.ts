/**
 * Follow-up questions ("and for contractors?") retrieve nothing useful alone. Before retrieval, a
 * follow-up is rewritten into a standalone query from the thread's history:
 *
 * - **With a chat model**: the condense-question prompt ({@link condenseQuestionMessages}) asks
 *   for a standalone rewrite (the "condense question" step of conversational retrieval chains).
 * - **Without one** (or when the model fails): the documented heuristic. A question is a
 *   follow-up when it starts with a continuation cue (`and`, `also`, `or`, `but`, `what about`,
 *   `how about`, `what if`, `same for`), refers back with a pronoun (`it`, `its`, `they`, `them`,
 *   `their`, `this`, `that`, `these`, `those`, `he`, `she`, `there`), or has at most two content
 *   words. Its rewrite is the question followed, in brackets, by the content words of the previous
 *   turn's query that it lacks (historical query expansion: Lin et al., 2020, "Query
 *   Reformulation using Query History for Passage Retrieval in Conversational Search"). After a
 *   substitution cue (`and`, `or`, `and for`, `what about`, `how about`, `same for`) the
 *   follow-up's own words replace the previous query's last ones ("How many vacation days do
 *   employees get?" then "and for contractors?" carries `vacation days`, not `employees`), as
 *   English questions usually end with the entity a follow-up swaps.
 *
 * Questions that are not follow-ups, and every question without history, are used unchanged.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import type { PredictState } from "../pipeline/request-state.js";
import type { Stage } from "../pipeline/stage.js";
import { checkedQuery } from "../retrieval/normalize-query.js";
import { englishStopWords } from "../text/english-stop-words.js";
import type { ConversationTurn, RewriteMethod } from "./memory-store.js";

export type { RewriteMethod } from "./memory-store.js";

/** Result of {@link rewriteFollowUp}. */
export interface RewrittenQuery {
  /** The query retrieval uses. */
  query: string;
  method: RewriteMethod;
}

/** The part of a LangChain chat model this module calls. */
export interface CondenseModel {
  invoke(messages: BaseMessage[], options?: { signal?: AbortSignal | undefined }): Promise<{ content: unknown }>;
}

const continuationCue = /^\s*(and|also|or|but|what about|how about|what if|same for)\b/i;
const substitutionCue = /^\s*(and|or|and for|what about|how about|same for)\b/i;
const backReference = /\b(it|its|they|them|their|this|that|these|those|he|she|there)\b/i;

/** Question and auxiliary words that carry no topic, beyond the analyzer's stop words. */
const questionWords = new Set(
  "how what which who whom whose when where why do does did can could would should may might must many much get gets got i you we me my our your about also please tell".split(
    " ",
  ),
);

function contentWords(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}'-]*/gu) ?? []).filter(
    (word) => word.length > 1 && !englishStopWords.has(word) && !questionWords.has(word),
  );
}

/** Whether `question` reads as a follow-up by the heuristic of the module documentation. */
export function isFollowUp(question: string): boolean {
  return continuationCue.test(question) || backReference.test(question) || contentWords(question).length <= 2;
}

/**
 * The heuristic rewrite: `question` and, in brackets, the previous query's content words it
 * lacks; after a substitution cue, without the previous query's last words that the follow-up's
 * own words replace. For example `and for contractors? (vacation days)`.
 */
export function carryPreviousTerms(question: string, previousQuery: string): string {
  const own = [...new Set(contentWords(question))];
  let previous = [...new Set(contentWords(previousQuery))];
  if (substitutionCue.test(question) && own.length > 0) previous = previous.slice(0, Math.max(0, previous.length - own.length));
  const present = new Set(own);
  const carried = previous.filter((word) => !present.has(word));
  return carried.length === 0 ? question : `${question.trim()} (${carried.join(" ")})`;
}

/** Version of the condense-question prompt; part of snapshot tests. */
export const condensePromptVersion = "condense-1";

/** The condense-question prompt: the recent turns, then the follow-up to make standalone. */
export function condenseQuestionMessages(question: string, history: readonly ConversationTurn[]): BaseMessage[] {
  const conversation = history
    .slice(-3)
    .map((turn) => `User: ${turn.rewrittenQuery ?? turn.question}\nAssistant: ${turn.answer.slice(0, 500)}`)
    .join("\n");
  return [
    new SystemMessage(
      "Rewrite the user's follow-up question as one standalone question that can be understood without the conversation. " +
        "Keep the user's language and intent; add the subject from the conversation when the follow-up leaves it out. " +
        "Return only the rewritten question, nothing else.",
    ),
    new HumanMessage(`<conversation>\n${conversation}\n</conversation>\nFollow-up question: ${question}`),
  ];
}

/**
 * Rewrites `question` into a standalone query using `history` (oldest first), with `model` when
 * given (falling back to the heuristic when it fails or returns nothing), else the heuristic.
 * Never throws for a model failure; `signal` aborts the model call.
 */
export async function rewriteFollowUp(
  question: string,
  history: readonly ConversationTurn[],
  options: { model?: CondenseModel | undefined; signal?: AbortSignal | undefined } = {},
): Promise<RewrittenQuery> {
  const previous = history.at(-1);
  if (!previous || !isFollowUp(question)) return { query: question, method: "unchanged" };
  if (options.model) {
    try {
      const reply = await options.model.invoke(condenseQuestionMessages(question, history), { signal: options.signal });
      const text = typeof reply.content === "string" ? reply.content.trim().replace(/^["']|["']$/g, "") : "";
      if (text !== "" && text.length <= 4 * Math.max(question.length, 200)) return { query: text, method: "model" };
    } catch {
      // The heuristic below still gives retrieval the earlier topic.
    }
  }
  return { query: carryPreviousTerms(question, previous.rewrittenQuery ?? previous.question), method: "heuristic" };
}

/**
 * Stage `rewrite-follow-up`: a follow-up question ("and for contractors?") is rewritten into a
 * standalone query from the thread's history, by the chat model when one is ready (condense
 * prompt) or by the documented heuristic (see `rewriteFollowUp`, docs/memory.md). The question
 * itself is kept for the answer and the memory.
 *
 * Writes `query` and `rewriteMethod`.
 */
export const rewriteFollowUpStage: Stage<PredictState> = {
  name: "rewrite-follow-up",
  phase: "request",
  async run(state, runtime) {
    const model = runtime.chatModel.status === "ready" ? runtime.chatModel.model : undefined;
    const rewritten = await rewriteFollowUp(state.question, state.history, { model, signal: state.signal });
    state.query = checkedQuery(rewritten.query, runtime.config.retrieval.maxQueryChars);
    state.rewriteMethod = rewritten.method;
  },
};
