/**
 * An in-memory {@link MemoryStore}: the default when no Redis is configured. Conversations live
 * in this process only (lost on restart, not shared between instances), expire by an injectable
 * clock, and are bounded in number (least recently used evicted first).
 */
import type { AppendOptions, Conversation, ConversationKey, ConversationTurn, MemoryStore } from "./memory-store.js";

/** Settings of {@link createInMemoryMemoryStore}. */
export interface InMemoryMemoryStoreSettings {
  /**
   * Most conversations kept; when a new one would exceed it, expired conversations are dropped
   * first, then the least recently used (loaded or appended) ones. Default 10,000.
   */
  maxConversations?: number | undefined;
  /** The clock, milliseconds since the Unix epoch; default `Date.now`. Tests inject a manual clock. */
  now?: (() => number) | undefined;
}

/** Default of {@link AppendOptions.maxTurns}. */
const defaultMaxTurns = 50;

interface StoredConversation {
  orgId: string;
  conversation: Conversation;
  /** Milliseconds since the Unix epoch; the conversation is gone from this instant on. */
  expiresAt: number;
}

/** The turn count kept by `append`: `maxTurns` rounded down, at least 0; default {@link defaultMaxTurns}. */
function turnLimit(maxTurns: number | undefined): number {
  return Math.max(0, Math.floor(maxTurns ?? defaultMaxTurns));
}

/** A time to live in seconds as milliseconds, at least 1 (as the Redis store, whose `PEXPIRE` needs a positive value). */
function ttlMilliseconds(ttlSeconds: number): number {
  return Number.isFinite(ttlSeconds) ? Math.max(1, Math.round(ttlSeconds * 1000)) : 1;
}

/**
 * Creates an in-memory conversation store.
 *
 * Expiry follows {@link MemoryStore}: `append` and `load` set the expiry to `ttlSeconds` from
 * `now()`; a conversation whose expiry has passed reads as absent and is dropped. Expired
 * conversations are also swept at most once per second of clock time, on any call, so their
 * contents do not stay in memory while the store is in use. Loaded conversations are copies.
 *
 * @example
 * ```ts
 * const memory = createInMemoryMemoryStore({ maxConversations: 1000 });
 * await memory.append({ orgId: "acme", kind: "session", id: "ada@acme.org" }, [turn], { userName: "ada@acme.org", ttlSeconds: 600 });
 * ```
 */
export function createInMemoryMemoryStore(settings: InMemoryMemoryStoreSettings = {}): MemoryStore {
  const maxConversations = Math.max(1, Math.floor(settings.maxConversations ?? 10_000));
  const now = settings.now ?? Date.now;
  /** Insertion order is recency order: a used conversation is moved to the end. */
  const conversations = new Map<string, StoredConversation>();
  let lastSweep = Number.NEGATIVE_INFINITY;

  const keyOf = (key: ConversationKey) => JSON.stringify([key.orgId, key.kind, key.id]);

  const sweep = (time: number) => {
    if (time - lastSweep < 1000) return;
    lastSweep = time;
    for (const [storedKey, stored] of conversations) if (stored.expiresAt <= time) conversations.delete(storedKey);
  };

  /** The live conversation, moved to the most recently used position; expired ones are dropped. */
  const live = (storedKey: string, time: number): StoredConversation | undefined => {
    const stored = conversations.get(storedKey);
    if (!stored) return undefined;
    conversations.delete(storedKey);
    if (stored.expiresAt <= time) return undefined;
    conversations.set(storedKey, stored);
    return stored;
  };

  const makeRoom = (time: number) => {
    if (conversations.size < maxConversations) return;
    lastSweep = Number.NEGATIVE_INFINITY;
    sweep(time);
    for (const storedKey of conversations.keys()) {
      if (conversations.size < maxConversations) break;
      conversations.delete(storedKey);
    }
  };

  return {
    name: "in-memory",
    async load(key: ConversationKey, ttlSeconds: number): Promise<Conversation | undefined> {
      const time = now();
      sweep(time);
      const stored = live(keyOf(key), time);
      if (!stored) return undefined;
      stored.expiresAt = time + ttlMilliseconds(ttlSeconds);
      return structuredClone(stored.conversation);
    },
    async append(key: ConversationKey, turns: readonly ConversationTurn[], options: AppendOptions): Promise<void> {
      const time = now();
      sweep(time);
      const storedKey = keyOf(key);
      let stored = live(storedKey, time);
      if (!stored) {
        makeRoom(time);
        stored = { orgId: key.orgId, conversation: { ownerUser: options.userName, turns: [] }, expiresAt: time };
        conversations.set(storedKey, stored);
      }
      const limit = turnLimit(options.maxTurns);
      const all = [...stored.conversation.turns, ...structuredClone(turns as ConversationTurn[])];
      stored.conversation.turns = limit === 0 ? [] : all.slice(-limit);
      stored.expiresAt = time + ttlMilliseconds(options.ttlSeconds);
    },
    async deleteUser(orgId: string, userName: string): Promise<number> {
      const time = now();
      let deleted = 0;
      for (const [storedKey, stored] of conversations) {
        if (stored.orgId !== orgId || stored.conversation.ownerUser !== userName) continue;
        conversations.delete(storedKey);
        if (stored.expiresAt > time) deleted += 1;
      }
      return deleted;
    },
    async ping(): Promise<void> {},
    async close(): Promise<void> {
      conversations.clear();
    },
  };
}
