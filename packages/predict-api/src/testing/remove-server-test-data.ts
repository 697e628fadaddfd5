/**
 * Clean-up for the integration tests that run docqa on the production backends: drops the Milvus
 * collections and deletes the OpenSearch indexes whose names start with a test's base name, and
 * deletes the Redis keys of a test's organisation, so a run leaves nothing behind on servers that
 * other runs share. Connects directly (not through a test's fault proxies). Not part of the package.
 */
import { MilvusClient } from "@zilliz/milvus2-sdk-node";
import { Redis } from "ioredis";

/** Drops every collection whose name starts with `base`. */
export async function dropMilvusCollections(address: string, base: string): Promise<string[]> {
  const client = new MilvusClient({ address, timeout: 30_000, logLevel: "error", telemetry: { enabled: false } });
  try {
    const listed = await client.listCollections();
    const names = listed.data.map((collection) => collection.name).filter((name) => name.startsWith(base));
    for (const name of names) await client.dropCollection({ collection_name: name });
    return names;
  } finally {
    await client.closeConnection().catch(() => undefined);
  }
}

/** Deletes every index whose name starts with `base` (`GET /_cat/indices`, then `DELETE`). */
export async function deleteSearchIndexes(url: string, base: string): Promise<string[]> {
  const response = await fetch(`${url}/_cat/indices/${base}*?format=json&h=index&expand_wildcards=all`);
  if (!response.ok) throw new Error(`listing the indexes ${base}* at ${url} answered HTTP ${response.status}`);
  const names = ((await response.json()) as { index: string }[]).map((row) => row.index).filter((name) => name.startsWith(base));
  for (const name of names) {
    const deleted = await fetch(`${url}/${name}`, { method: "DELETE" });
    if (!deleted.ok) throw new Error(`deleting the index ${name} at ${url} answered HTTP ${deleted.status}`);
  }
  return names;
}

/** Deletes every key whose name contains `fragment` (for example an organisation id), with SCAN. */
export async function deleteRedisKeys(url: string, fragment: string): Promise<number> {
  const client = new Redis(url, { maxRetriesPerRequest: 1, lazyConnect: true });
  client.on("error", () => {});
  let deleted = 0;
  try {
    await client.connect();
    let cursor = "0";
    do {
      const [next, keys] = await client.scan(cursor, "MATCH", `*${fragment}*`, "COUNT", 1000);
      if (keys.length > 0) deleted += await client.del(...keys);
      cursor = next;
    } while (cursor !== "0");
  } finally {
    client.disconnect();
  }
  return deleted;
}
