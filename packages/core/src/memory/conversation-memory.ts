/**
 * Conversation memory of the question-answering pipeline (spec: session memory per user,
 * `SESSION_TIMEOUT`; thread memory per `thread_id`, `THREAD_TIMEOUT`; "update session memory
 * after the response has been returned").
 *
 * Rules (documented in docs/memory.md):
 * - **Threads are private to their creator.** A thread is stored under (organisation, user,
 *   thread id), so the same `thread_id` sent by another user or from another organisation reads
 *   nothing and never mixes turns into the creator's thread.
 * - **Unknown or expired thread ids start a fresh thread under that id** (no error), so clients
 *   may choose their own ids (set B's `sessionId`).
 * - **Reads fail soft**: when the memory store is down, the request is answered without history
 *   and a warning is logged. **Writes happen after the response** and never fail a request; a
 *   failed write is logged without its contents.
 * - The session keeps the user's recent turns across threads (for the privacy controls and
 *   clients that read it); follow-ups are resolved from the thread.
 */
import { randomUUID } from "node:crypto";
import type { Logger } from "../logging/logger.js";
import type { TokenCounter } from "./count-tokens.js";
import type { ConversationKey, ConversationTurn, MemoryStore } from "./memory-store.js";
import { trimHistory } from "./trim-history.js";

/** Settings of {@link createConversationMemory}. */
export interface ConversationMemorySettings {
  store: MemoryStore;
  /** `SESSION_TIMEOUT`, seconds. */
  sessionTimeoutSeconds: number;
  /** `THREAD_TIMEOUT`, seconds. */
  threadTimeoutSeconds: number;
  /** `MAX_SESSION_TOKENS`: budget of the history passed on, in tokens. */
  maxSessionTokens: number;
  /**
   * Token counter for the budget (see `createTokenCounter`), or a promise of one: it is awaited
   * only when a thread with history is read, so loading the rank file never delays a first question.
   */
  countTokens: TokenCounter | Promise<TokenCounter>;
  logger: Logger;
  /** Turns kept per conversation; default 20. */
  maxTurns?: number | undefined;
}

/** Who asks, and in which thread. */
export interface ConversationRequest {
  orgId: string;
  /** The user (lower-cased e-mail). */
  userName: string;
  /** The thread to continue; a new id is created when absent. */
  threadId?: string | undefined;
}

/** What {@link ConversationMemory.begin} returns. */
export interface ConversationStart {
  threadId: string;
  /** Turns of the thread within the token budget, oldest first (empty for a new thread). */
  history: ConversationTurn[];
  /** Whether the thread existed (and belonged to the user). */
  continued: boolean;
}

/** The memory steps of a request. */
export interface ConversationMemory {
  /** Loads the thread's history (refreshing its TTL). Never throws. */
  begin(request: ConversationRequest): Promise<ConversationStart>;
  /**
   * Stores a turn in the thread and the user's session, in the background: returns at once,
   * never throws; failures are logged without contents. `settled()` waits for pending writes.
   */
  record(request: ConversationRequest & { threadId: string }, turn: ConversationTurn): void;
  /** Deletes the user's session and threads; returns how many conversations were deleted. */
  forget(orgId: string, userName: string): Promise<number>;
  /** Resolves when every background write has finished (for shutdown and tests). */
  settled(): Promise<void>;
}

/** The store key of a user's thread: threads are private to their creator. */
export function threadKey(orgId: string, userName: string, threadId: string): ConversationKey {
  return { orgId, kind: "thread", id: JSON.stringify([userName, threadId]) };
}

/** The store key of a user's session. */
export function sessionKey(orgId: string, userName: string): ConversationKey {
  return { orgId, kind: "session", id: userName };
}

/** Creates the memory steps over `settings.store`. */
export function createConversationMemory(settings: ConversationMemorySettings): ConversationMemory {
  const pending = new Set<Promise<void>>();
  const maxTurns = settings.maxTurns ?? 20;
  const failed = (operation: string) => (error: unknown) => {
    settings.logger.warn(`conversation memory: ${operation} failed; answering without memory`, {
      component: "memory",
      store: settings.store.name,
      error: (error as { code?: string }).code ?? (error as Error).name,
    });
  };

  return {
    async begin(request) {
      const userName = request.userName.toLowerCase();
      if (!request.threadId) return { threadId: randomUUID(), history: [], continued: false };
      try {
        const stored = await settings.store.load(threadKey(request.orgId, userName, request.threadId), settings.threadTimeoutSeconds);
        if (!stored || stored.ownerUser !== userName) return { threadId: request.threadId, history: [], continued: false };
        return {
          threadId: request.threadId,
          history: trimHistory(stored.turns, settings.maxSessionTokens, await settings.countTokens),
          continued: true,
        };
      } catch (error) {
        failed("reading the thread")(error);
        return { threadId: request.threadId, history: [], continued: false };
      }
    },

    record(request, turn) {
      const userName = request.userName.toLowerCase();
      const write = Promise.all([
        settings.store.append(threadKey(request.orgId, userName, request.threadId), [turn], {
          userName,
          ttlSeconds: settings.threadTimeoutSeconds,
          maxTurns,
        }),
        settings.store.append(sessionKey(request.orgId, userName), [turn], {
          userName,
          ttlSeconds: settings.sessionTimeoutSeconds,
          maxTurns,
        }),
      ]).then(() => undefined, failed("storing the turn"));
      pending.add(write);
      void write.finally(() => pending.delete(write));
    },

    forget(orgId, userName) {
      return settings.store.deleteUser(orgId, userName.toLowerCase());
    },

    async settled() {
      await Promise.allSettled([...pending]);
    },
  };
}
