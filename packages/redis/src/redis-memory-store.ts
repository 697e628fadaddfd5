/**
 * A {@link MemoryStore} in Redis, shared by every server instance: one list per conversation,
 * trimmed and expired atomically by Lua scripts, and a per-user index for privacy deletion.
 * Conversation contents are personal data: this module never logs them.
 */
import type { AppendOptions, Conversation, ConversationKey, ConversationTurn, MemoryStore } from "@docqa/core/stores";
import type { Redis } from "ioredis";
import { callRedis } from "./call-redis.js";
import { defaultKeyPrefix, redisKeyLayout } from "./redis-key-layout.js";
import { redisUnavailableError } from "./redis-unavailable-error.js";

/** Settings of {@link createRedisMemoryStore}. */
export interface RedisMemoryStoreOptions {
  /** Prefix of every key; default `docqa:`. */
  keyPrefix?: string | undefined;
}

/** Default of {@link AppendOptions.maxTurns}. */
const defaultMaxTurns = 50;

/** The first element of every conversation list. */
interface ConversationHeader {
  /** Format version: 1. */
  v: 1;
  /** The creator. */
  ownerUser: string;
  /** The key of the creator's index set (so scripts can refresh it without knowing the layout). */
  index: string;
}

/**
 * Lua: adds the conversation `KEYS[1]` to the index named in its header `header` and makes the
 * index live at least `ttl` milliseconds more (an index outlives every conversation it lists).
 */
const touchIndex = `local function touch_index(key, header, ttl)
  local ok, decoded = pcall(cjson.decode, header)
  if ok and type(decoded) == 'table' and type(decoded.index) == 'string' then
    redis.call('SADD', decoded.index, key)
    if redis.call('PTTL', decoded.index) < ttl then redis.call('PEXPIRE', decoded.index, ttl) end
  end
end
`;

/**
 * Lua, `append`: KEYS[1] conversation; ARGV[1] header for a new conversation, ARGV[2] TTL in
 * milliseconds, ARGV[3] turns kept, ARGV[4…] turns as JSON. Creates the list with the header when
 * absent, pushes the turns, drops the oldest turns beyond the limit (keeping the header), sets
 * the expiry, and refreshes the owner's index.
 */
const appendScript = `${touchIndex}
local key = KEYS[1]
local ttl = tonumber(ARGV[2])
local header = redis.call('LINDEX', key, 0)
if not header then
  header = ARGV[1]
  redis.call('RPUSH', key, header)
end
for i = 4, #ARGV do redis.call('RPUSH', key, ARGV[i]) end
local excess = redis.call('LLEN', key) - 1 - tonumber(ARGV[3])
if excess > 0 then
  redis.call('LTRIM', key, excess + 1, -1)
  redis.call('LPUSH', key, header)
end
redis.call('PEXPIRE', key, ttl)
touch_index(key, header, ttl)
return 1`;

/**
 * Lua, `load`: KEYS[1] conversation; ARGV[1] TTL in milliseconds. Returns the list (header, then
 * turns), refreshing its expiry and its owner's index when it exists.
 */
const loadScript = `${touchIndex}
local items = redis.call('LRANGE', KEYS[1], 0, -1)
if #items > 0 then
  local ttl = tonumber(ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ttl)
  touch_index(KEYS[1], items[1], ttl)
end
return items`;

/**
 * Lua, `deleteUser`: KEYS[1] the user's index, KEYS[2] the user's session; ARGV[1] the user name.
 * Deletes each listed conversation (and the session) whose header still names the user as owner
 * (a thread id may have expired and been created again by someone else), then the index. Returns
 * the number of conversations deleted.
 */
const deleteUserScript = `local deleted = 0
local seen = {}
local members = redis.call('SMEMBERS', KEYS[1])
members[#members + 1] = KEYS[2]
for _, key in ipairs(members) do
  if not seen[key] then
    seen[key] = true
    if redis.call('TYPE', key).ok == 'list' then
      local ok, decoded = pcall(cjson.decode, redis.call('LINDEX', key, 0))
      if ok and type(decoded) == 'table' and decoded.ownerUser == ARGV[1] then
        deleted = deleted + redis.call('DEL', key)
      end
    end
  end
end
redis.call('DEL', KEYS[1])
return deleted`;

type ScriptCommand = (...args: (string | number)[]) => Promise<unknown>;

/** Defines a Lua script as a client command (`EVALSHA`, falling back to `EVAL` once per connection). */
function defineScript(client: Redis, name: string, numberOfKeys: number, lua: string): ScriptCommand {
  client.defineCommand(name, { numberOfKeys, lua });
  const command = (client as unknown as Record<string, ScriptCommand>)[name] as ScriptCommand;
  return (...args) => command.apply(client, args);
}

/**
 * Creates a Redis memory store on `client`. Layout (see {@link redisKeyLayout}):
 *
 * - `<prefix>memory:<org>:session:<user>` and `<prefix>memory:<org>:thread:<threadId>`: a list
 *   whose first element is a JSON header (`ownerUser`, the creator) and whose other elements are
 *   the turns as JSON, oldest first. `append` pushes, trims to `maxTurns` (default 50) and sets
 *   the expiry in one Lua script; `load` reads and refreshes the expiry in one script. Expiries
 *   are in milliseconds (`PEXPIRE`), at least 1 ms.
 * - `<prefix>memory:<org>:user:<user>`: the set of conversation keys the user created, kept alive
 *   at least as long as the longest-lived of them; `deleteUser` deletes the user's session, every
 *   listed conversation still owned by the user, and the set, in one script.
 *
 * Organisation ids, user names and thread ids are escaped in keys, so different organisations
 * or users never share a key. Scripts touch keys they read from the index, which suits a
 * standalone Redis or Sentinel, not Redis Cluster. `close()` leaves the client open.
 *
 * Errors: every method throws {@link DocqaError} `store_unavailable` (component `redis`) when Redis
 * fails or does not answer within the client's `commandTimeout`.
 */
export function createRedisMemoryStore(client: Redis, options: RedisMemoryStoreOptions = {}): MemoryStore {
  const keys = redisKeyLayout(options.keyPrefix ?? defaultKeyPrefix);
  const appendConversation = defineScript(client, "docqaMemoryAppend", 1, appendScript);
  const loadConversation = defineScript(client, "docqaMemoryLoad", 1, loadScript);
  const deleteConversations = defineScript(client, "docqaMemoryDeleteUser", 2, deleteUserScript);
  const ttlMilliseconds = (ttlSeconds: number) => (Number.isFinite(ttlSeconds) ? Math.max(1, Math.round(ttlSeconds * 1000)) : 1);

  return {
    name: "redis",
    async load(key: ConversationKey, ttlSeconds: number): Promise<Conversation | undefined> {
      const conversationKey = keys.conversation(key);
      const items = (await callRedis(client, "load a conversation", () =>
        loadConversation(conversationKey, ttlMilliseconds(ttlSeconds)),
      )) as string[];
      const [header, ...turns] = items;
      if (header === undefined) return undefined;
      try {
        return {
          ownerUser: (JSON.parse(header) as ConversationHeader).ownerUser,
          turns: turns.map((turn) => JSON.parse(turn) as ConversationTurn),
        };
      } catch (error) {
        throw redisUnavailableError(client, `read conversation ${conversationKey}, which is not docqa's JSON`, error);
      }
    },
    async append(key: ConversationKey, turns: readonly ConversationTurn[], appendOptions: AppendOptions): Promise<void> {
      const header: ConversationHeader = {
        v: 1,
        ownerUser: appendOptions.userName,
        index: keys.userConversations(key.orgId, appendOptions.userName),
      };
      const maxTurns = Math.max(0, Math.floor(appendOptions.maxTurns ?? defaultMaxTurns));
      await callRedis(client, "append to a conversation", () =>
        appendConversation(
          keys.conversation(key),
          JSON.stringify(header),
          ttlMilliseconds(appendOptions.ttlSeconds),
          maxTurns,
          ...turns.map((turn) => JSON.stringify(turn)),
        ),
      );
    },
    async deleteUser(orgId: string, userName: string): Promise<number> {
      const deleted = await callRedis(client, "delete a user's conversations", () =>
        deleteConversations(keys.userConversations(orgId, userName), keys.conversation({ orgId, kind: "session", id: userName }), userName),
      );
      return Number(deleted);
    },
    async ping() {
      await callRedis(client, "answer PING", () => client.ping());
    },
    async close() {},
  };
}
