/**
 * Conversation memory (spec: session memory per user, `SESSION_TIMEOUT`; thread memory per
 * `thread_id`, `THREAD_TIMEOUT`). A store keeps conversations keyed by organisation and by user
 * (sessions) or thread id (threads); the service decides who may read a thread (its creator,
 * recorded as {@link Conversation.ownerUser}). Implementations: in memory (default, bounded,
 * with TTL eviction) and Redis (`@docqa/redis`, shared by every server instance).
 *
 * Memory contents (questions and answers) are personal data: implementations never log them.
 */

/** Which conversation: a user's session or a thread. */
export interface ConversationKey {
  /** The organisation (`org_id` claim). Conversations of different organisations never meet. */
  orgId: string;
  /** `session`: one per user; `thread`: one per `thread_id`. */
  kind: "session" | "thread";
  /** The user name (lower-cased e-mail) for a session, the thread id for a thread. */
  id: string;
}

/** One question and its answer. */
export interface ConversationTurn {
  /** The question as the user asked it. */
  question: string;
  /** The standalone query retrieval used (the rewritten follow-up), when it differs. */
  rewrittenQuery?: string | undefined;
  /** The answer text (the rendered answer, without the sources map). */
  answer: string;
  /** Document ids cited by the answer. */
  citedDocIds?: readonly string[] | undefined;
  /** When the turn was stored, milliseconds since the Unix epoch. */
  createdAt: number;
}

/** A stored conversation. */
export interface Conversation {
  /** The user who created it (lower-cased e-mail). */
  ownerUser: string;
  /** Turns, oldest first. */
  turns: ConversationTurn[];
}

/** Options of {@link MemoryStore.append}. */
export interface AppendOptions {
  /** The user appending; recorded as the owner when the conversation is created. */
  userName: string;
  /** Time to live after this write, in seconds (`SESSION_TIMEOUT` or `THREAD_TIMEOUT`). */
  ttlSeconds: number;
  /** Oldest turns beyond this count are dropped; default 50. */
  maxTurns?: number | undefined;
}

/** A store of conversations with per-conversation expiry. */
export interface MemoryStore {
  /** Name used in logs and health, for example `in-memory` or `redis`. */
  readonly name: string;
  /**
   * The conversation, or undefined when it does not exist or has expired. Reading refreshes the
   * expiry to `ttlSeconds` from now (TTLs refresh on use).
   *
   * @throws {DocqaError} `store_unavailable` when the backend fails.
   */
  load(key: ConversationKey, ttlSeconds: number): Promise<Conversation | undefined>;
  /**
   * Appends turns, creating the conversation (owned by `options.userName`) when it does not
   * exist, and sets its expiry to `options.ttlSeconds` from now.
   *
   * @throws {DocqaError} `store_unavailable`.
   */
  append(key: ConversationKey, turns: readonly ConversationTurn[], options: AppendOptions): Promise<void>;
  /**
   * Deletes a user's session and every thread the user created in the organisation (privacy
   * request). Returns the number of conversations deleted.
   *
   * @throws {DocqaError} `store_unavailable`.
   */
  deleteUser(orgId: string, userName: string): Promise<number>;
  /**
   * Checks that the backend answers (readiness probes): Redis `PING`; resolves at once in memory.
   *
   * @throws {DocqaError} `store_unavailable`.
   */
  ping(): Promise<void>;
  /** Releases connections and timers. */
  close(): Promise<void>;
}

/** How a query was obtained. */
export type RewriteMethod = "unchanged" | "heuristic" | "model";
