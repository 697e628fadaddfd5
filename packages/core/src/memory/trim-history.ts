/**
 * The history budget (`MAX_SESSION_TOKENS`, default 500): the turns passed to the model are the
 * most recent ones whose question and answer fit the budget together.
 */
import type { TokenCounter } from "./count-tokens.js";
import type { ConversationTurn } from "./memory-store.js";

/**
 * Keeps the most recent turns whose tokens (question plus answer, counted by `count`) sum to at
 * most `maxTokens`, oldest first. A turn that does not fit ends the history: older turns are not
 * considered, so the kept turns are always contiguous with the present.
 */
export function trimHistory(turns: readonly ConversationTurn[], maxTokens: number, count: TokenCounter): ConversationTurn[] {
  const kept: ConversationTurn[] = [];
  let used = 0;
  for (let index = turns.length - 1; index >= 0; index--) {
    const turn = turns[index] as ConversationTurn;
    const cost = count(turn.question) + count(turn.answer);
    if (used + cost > maxTokens) break;
    used += cost;
    kept.unshift(turn);
  }
  return kept;
}
