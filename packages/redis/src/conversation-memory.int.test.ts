/**
 * The conversation memory contract (threads private to their creator and organisation, token
 * budget, privacy deletion) on the Redis memory store.
 */
import { describeConversationMemoryContract } from "@docqa/core/contract";
import { redisClientFromConfig } from "./redis-client-from-config.js";
import { createRedisMemoryStore } from "./redis-memory-store.js";
import { connectTestRedis, describeSkippedWithoutRedis } from "./testing/connect-test-redis.js";

const redis = await connectTestRedis();

if (redis.unavailable) {
  describeSkippedWithoutRedis("redis conversation memory", redis);
} else {
  describeConversationMemoryContract("redis", async () => {
    const client = redisClientFromConfig(redis.config);
    const keyPrefix = redis.newKeyPrefix();
    return {
      store: createRedisMemoryStore(client, { keyPrefix }),
      async close() {
        await redis.deleteKeys(keyPrefix);
        await client.quit();
      },
    };
  });
}
