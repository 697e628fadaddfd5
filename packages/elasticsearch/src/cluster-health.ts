/**
 * What the search engine's `GET /_cluster/health` says about serving docqa: the health check of
 * the keyword index (`ping`, readiness). Green with every listed node: up. Yellow (a shard copy
 * unassigned: a replica lost with its node, or never placed) or fewer nodes in the cluster than
 * `FULLTEXT_URI` lists: degraded, since every query and write is still served, but one more node
 * lost may lose shards. Red (a primary shard unassigned): down, since searches and writes of that
 * shard's organisations fail.
 */
import { DocqaError } from "@docqa/core";
import type { StoreHealth } from "@docqa/core/stores";

/** The fields of `GET /_cluster/health` read here (asked with `filter_path`). */
export const clusterHealthFields = ["status", "number_of_nodes", "unassigned_shards", "initializing_shards"] as const;

/**
 * The health of the cluster from a `GET /_cluster/health` body.
 *
 * @param body - the parsed answer.
 * @param listedNodes - how many nodes `FULLTEXT_URI` lists; fewer nodes in the cluster is degraded.
 * @param engine - the engine, named in errors.
 * @returns `undefined` when healthy, else the degraded reason.
 * @throws {DocqaError} `store_unavailable` when the cluster is red, or the body is not a health answer.
 */
export function clusterHealth(body: unknown, listedNodes: number, engine: string): StoreHealth | undefined {
  const health = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
  const status = health.status;
  const nodes = typeof health.number_of_nodes === "number" ? health.number_of_nodes : undefined;
  const unassigned = typeof health.unassigned_shards === "number" ? health.unassigned_shards : 0;
  const initializing = typeof health.initializing_shards === "number" ? health.initializing_shards : 0;
  if (status !== "green" && status !== "yellow" && status !== "red") {
    throw new DocqaError("store_unavailable", `unexpected _cluster/health answer: ${JSON.stringify(body)?.slice(0, 200)}`, {
      component: engine,
    });
  }
  const facts: string[] = [];
  if (nodes !== undefined && nodes < listedNodes) facts.push(`${nodes} of the ${listedNodes} nodes of FULLTEXT_URI in the cluster`);
  else if (nodes !== undefined) facts.push(`${nodes} node${nodes === 1 ? "" : "s"}`);
  if (unassigned > 0) facts.push(`${unassigned} shard cop${unassigned === 1 ? "y" : "ies"} unassigned`);
  if (initializing > 0) facts.push(`${initializing} initializing`);
  const described = `cluster health ${status} (${facts.join("; ")})`;
  if (status === "red") {
    throw new DocqaError("store_unavailable", `${described}: a primary shard is unassigned, so some searches and writes fail`, {
      component: engine,
    });
  }
  if (status === "yellow" || (nodes !== undefined && nodes < listedNodes)) return { degraded: described };
  return undefined;
}
