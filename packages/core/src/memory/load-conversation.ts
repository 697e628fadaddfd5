/**
 * Stage `conversation` (spec `POST /predict` step 2 and "conversation memory"): the thread is
 * continued or created, and its history loaded within `MAX_SESSION_TOKENS`. Stored turns win; a
 * client's own history (set B's `context`) is used when the thread has none. An anonymous
 * principal (no user name), or a request with `memory: false` (`/testpredict`), gets the thread
 * id it sent (or a fresh one) and no memory: nothing is read, and `record-memory` writes nothing.
 */
import { randomUUID } from "node:crypto";
import type { PredictState } from "../pipeline/request-state.js";
import type { Stage } from "../pipeline/stage.js";
import type { HistoryTurn } from "../prompts/prompts.js";
import type { ConversationTurn } from "./memory-store.js";

/** Writes `threadId`, `history` and `conversation`. */
export const loadConversation: Stage<PredictState> = {
  name: "conversation",
  phase: "request",
  async run(state, runtime) {
    if (state.principal.userName === "" || state.request.memory === false) {
      state.threadId = state.request.threadId ?? randomUUID();
    } else {
      state.conversation = await runtime.memory();
      const started = await state.conversation.begin({
        orgId: state.orgId,
        userName: state.principal.userName,
        threadId: state.request.threadId,
      });
      state.threadId = started.threadId;
      state.history = started.history;
    }
    if (state.history.length === 0 && state.request.history.length > 0) {
      state.history = historyTurns(state.request.history).map((turn): ConversationTurn => ({ ...turn, createdAt: 0 }));
    }
  },
};

/**
 * Pairs conversation messages into turns: each user message with the assistant messages that
 * follow it (joined); assistant messages before any user message form a turn with an empty question.
 */
export function historyTurns(messages: PredictState["request"]["history"]): HistoryTurn[] {
  const turns: HistoryTurn[] = [];
  for (const message of messages) {
    const last = turns.at(-1);
    if (message.role === "user") turns.push({ question: message.content, answer: "" });
    else if (last) last.answer = last.answer === "" ? message.content : `${last.answer}\n${message.content}`;
    else turns.push({ question: "", answer: message.content });
  }
  return turns;
}
