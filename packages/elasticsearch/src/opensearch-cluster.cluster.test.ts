/**
 * Node failures of a real three-node OpenSearch cluster (`scripts/services/start-opensearch-cluster.sh`,
 * `DOCQA_TEST_OPENSEARCH_CLUSTER_URLS`; run with `npm run test:cluster`): a docqa service whose
 * `FULLTEXT_URI` lists the three nodes, with indexes of 3 shards and 1 replica, while one node's
 * process is killed (SIGKILL, the elected cluster manager, so that the cluster also elects a new
 * one and promotes replicas):
 *
 * - during searches: not one search fails, and every search finds the document it looks for;
 * - during ingestion: every write that was acknowledged is there afterwards, in the registry and
 *   in the keyword index (writes that failed are retried until acknowledged, as a client would);
 * - meanwhile readiness stays ready and reports the keyword index `degraded`, naming the missing
 *   node; once the node is restarted and the cluster green again, `up`.
 *
 * The killed node is restarted by the start script before each test ends. Without the cluster the
 * file skips, except in CI (`CI=true`), where it fails.
 */
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createRagService, loadConfig, type Principal, type RagService } from "@docqa/core";
import { integrationServer, testName } from "@docqa/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { organisationIndexNames } from "./index-names.js";

const cluster = await integrationServer("opensearch-cluster", "OpenSearch cluster tests");
const urls = (cluster.url ?? "").split(",").map((url) => url.trim());
const repositoryRoot = fileURLToPath(new URL("../../..", import.meta.url));
const stateDir = join(process.env.DOCQA_SERVICES_DIR ?? join(repositoryRoot, ".services"), "opensearch-cluster");
const principal: Principal = { userName: "ops@example.org", roles: [], groups: [] };
/** Time the cluster may take to notice the dead node, elect a manager and promote replicas. */
const storeTimeoutMs = 30_000;
/** How long searches or writes go on after the kill. */
const afterKillMs = 15_000;
/** Bound of every loop, whatever happens. */
const maximumLoopMs = 90_000;

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

/** GET on the first node that answers (any node may be the dead one). */
async function getJson(path: string): Promise<unknown> {
  for (const url of urls) {
    try {
      const response = await fetch(`${url}${path}`, { signal: AbortSignal.timeout(5_000) });
      if (response.ok) return await response.json();
    } catch {
      // next node
    }
  }
  throw new Error(`no node of ${urls.join(",")} answers ${path}`);
}

/** The node number (1 to 3) of the elected cluster manager. */
async function clusterManagerNode(): Promise<number> {
  const [manager] = (await getJson("/_cat/cluster_manager?format=json")) as { node: string }[];
  const match = /docqa-node-(\d)/.exec(manager?.node ?? "");
  if (!match) throw new Error(`unexpected cluster manager ${JSON.stringify(manager)}`);
  return Number(match[1]);
}

/** Kills node `node`'s JVM with SIGKILL (by its pidfile, as the start script recorded it). */
function killNode(node: number): void {
  const pid = Number(readFileSync(join(stateDir, `node-${node}`, "node.pid"), "utf8").trim());
  const commandLine = readFileSync(`/proc/${pid}/cmdline`, "utf8");
  if (!commandLine.includes(`docqa-node-${node}`)) throw new Error(`pid ${pid} is not node ${node} of the test cluster`);
  process.kill(pid, "SIGKILL");
}

/** Restarts node `node` with the start script and waits for three nodes and green health. */
async function restartNode(node: number): Promise<void> {
  await promisify(execFile)(join(repositoryRoot, "scripts/services/start-opensearch-cluster.sh"), [String(node)], {
    cwd: repositoryRoot,
    env: { ...process.env, DOCQA_SERVICES_DIR: join(stateDir, "..") },
    timeout: 240_000,
  });
  await getJson("/_cluster/health?wait_for_status=green&wait_for_nodes=3&timeout=120s");
}

/** Polls the service's readiness until `accept` holds for the keyword check, at most `timeoutMs`. */
async function keywordReadiness(service: RagService, accept: (status: string) => boolean, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const readiness = await service.readiness();
    const keyword = readiness.checks.find((check) => check.role === "keyword");
    if ((keyword && accept(keyword.status)) || Date.now() > deadline) return { readiness, keyword };
    await sleep(500);
  }
}

function documentInput(index: number) {
  return {
    title: `Procedure ${index}`,
    content: `Procedure ${index}: the valve marked kestrel${index} is opened before the pump marked osprey${index} is started.`,
    metadata: { acl: "|user:_all_|" },
  };
}

describe.skipIf(!cluster.available)("a three-node OpenSearch cluster losing a node (FULLTEXT_URI lists every node)", () => {
  const base = testName("docqa_cluster");
  const orgId = randomUUID();
  let service: RagService;
  let dataDir: string;
  const restarts: number[] = [];

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "docqa-cluster-"));
    const config = loadConfig({
      DATA_DIR: dataDir,
      LOG_LEVEL: "silent",
      EMBED_PROVIDER: "none",
      VECTOR_STORE: "none",
      KEYWORD_STORE: "opensearch",
      FULLTEXT_URI: urls.join(","),
      FULLTEXT_INDEX: base,
      FULLTEXT_SHARDS: "3",
      FULLTEXT_REPLICAS: "1",
      STORE_TIMEOUT_MS: String(storeTimeoutMs),
      READINESS_TIMEOUT_MS: "5000",
      SWEEP_INTERVAL_SECONDS: "0",
      USE_RAPTOR: "false",
    });
    service = createRagService({ config });
    await service.ready();
    const documents = Object.fromEntries(Array.from({ length: 60 }, (_, index) => [`procedure-${index}`, documentInput(index)]));
    await service.upsert({ orgId, principal, uploader: principal.userName, documents });
    await getJson("/_cluster/health?wait_for_status=green&wait_for_nodes=3&timeout=120s");
  });

  afterAll(async () => {
    // A node killed by a failed test comes back, so the next test (and run) has three nodes.
    for (const node of restarts.splice(0)) await restartNode(node).catch(() => undefined);
    await service?.close();
    const names = organisationIndexNames(base, orgId);
    for (const index of [names.chunksIndex, names.registryIndex]) {
      for (const url of urls) {
        const deleted = await fetch(`${url}/${index}`, { method: "DELETE", signal: AbortSignal.timeout(10_000) }).catch(() => undefined);
        if (deleted) break;
      }
    }
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("spreads the chunk index over the three nodes, 3 shards with a replica each, and reports it up", async () => {
    const names = organisationIndexNames(base, orgId);
    const shards = (await getJson(`/_cat/shards/${names.chunksIndex}?format=json`)) as { prirep: string; node: string; state: string }[];
    expect(shards.filter((shard) => shard.prirep === "p")).toHaveLength(3);
    expect(shards.filter((shard) => shard.prirep === "r")).toHaveLength(3);
    expect(shards.every((shard) => shard.state === "STARTED")).toBe(true);
    expect(new Set(shards.map((shard) => shard.node)).size).toBe(3);
    const { readiness, keyword } = await keywordReadiness(service, (status) => status === "up");
    expect(readiness.ready).toBe(true);
    expect(keyword?.status, JSON.stringify(readiness)).toBe("up");
  });

  it("answers every search while the cluster manager's node is killed, and readiness reports the degraded cluster", async () => {
    const node = await clusterManagerNode();
    const outcomes = { searches: 0, failed: [] as string[], missing: [] as number[] };
    let stop = false;
    const started = Date.now();
    const searcher = async (worker: number) => {
      for (let round = 0; !stop && Date.now() - started < maximumLoopMs; round++) {
        const index = (worker * 7 + round * 13) % 60;
        try {
          const result = await service.search({ orgId, principal, query: `kestrel${index} osprey${index}`, limit: 3 });
          outcomes.searches++;
          if (result.results[0]?.chunk.docId !== `procedure-${index}`) {
            outcomes.missing.push(index);
            console.info(
              `[docqa] search ${index} found ${JSON.stringify(result.results.map((item) => item.chunk.docId))} at ${Date.now() - started} ms`,
            );
          }
        } catch (error) {
          outcomes.failed.push((error as Error).message);
        }
      }
    };
    const searchers = [0, 1, 2, 3].map(searcher);
    await sleep(2_000);
    const before = outcomes.searches;
    killNode(node);
    restarts.push(node);
    const killedAt = Date.now();
    let degraded: Awaited<ReturnType<typeof keywordReadiness>>;
    try {
      degraded = await keywordReadiness(service, (status) => status === "degraded");
      await sleep(Math.max(0, afterKillMs - (Date.now() - killedAt)));
    } finally {
      stop = true;
      await Promise.all(searchers);
      await restartNode(node);
      restarts.splice(restarts.indexOf(node), 1);
    }
    const { readiness, keyword } = degraded;
    console.info(
      `[docqa] cluster searches: ${outcomes.searches} answered, ${outcomes.searches - before} after the kill; ${outcomes.failed.length} failed`,
    );

    expect(before).toBeGreaterThan(0);
    expect(outcomes.searches - before, "searches after the kill").toBeGreaterThan(20);
    expect(outcomes.failed, "failed searches").toEqual([]);
    expect(outcomes.missing, "searches that missed their document").toEqual([]);
    expect(readiness.ready).toBe(true);
    expect(keyword?.status, JSON.stringify(readiness)).toBe("degraded");
    expect(keyword?.degraded).toContain("2 of the 3 nodes of FULLTEXT_URI in the cluster");
    expect(readiness.detail).toContain("opensearch (keyword index) is degraded");
    expect((await keywordReadiness(service, (status) => status === "up")).keyword?.status).toBe("up");
  });

  it("keeps every acknowledged write while the cluster manager's node is killed during ingestion", async () => {
    const node = await clusterManagerNode();
    const acknowledged = new Set<number>();
    const failures: string[] = [];
    let next = 1000;
    let stop = false;
    const started = Date.now();
    const writer = async () => {
      while (!stop && Date.now() - started < maximumLoopMs) {
        const index = next++;
        // A write that fails is retried until it is acknowledged, as an ingesting client would.
        for (let attempt = 0; !stop || attempt === 0; attempt++) {
          try {
            await service.upsert({
              orgId,
              principal,
              uploader: principal.userName,
              documents: { [`procedure-${index}`]: documentInput(index) },
            });
            acknowledged.add(index);
            break;
          } catch (error) {
            failures.push((error as Error).message);
            if (Date.now() - started > maximumLoopMs) break;
            await sleep(250);
          }
        }
      }
    };
    const writers = [writer(), writer()];
    await sleep(3_000);
    const before = acknowledged.size;
    killNode(node);
    restarts.push(node);
    try {
      await sleep(afterKillMs);
    } finally {
      stop = true;
      await Promise.all(writers);
    }
    console.info(
      `[docqa] cluster ingestion: ${acknowledged.size} writes acknowledged, ${before} before the kill; ${failures.length} failed attempts (retried): ${JSON.stringify(failures.slice(0, 5))}`,
    );
    expect(before).toBeGreaterThan(0);
    expect(acknowledged.size - before, "writes acknowledged after the kill").toBeGreaterThan(5);

    // Every acknowledged write is committed and searchable, with the cluster still missing a node.
    const lost: number[] = [];
    for (const index of acknowledged) {
      const result = await service.search({ orgId, principal, query: `kestrel${index} osprey${index}`, limit: 1 });
      if (result.results[0]?.chunk.docId !== `procedure-${index}`) lost.push(index);
    }
    expect(lost, `acknowledged writes not found (of ${acknowledged.size}; ${failures.length} failed attempts retried)`).toEqual([]);

    await restartNode(node);
    restarts.splice(restarts.indexOf(node), 1);
    // And still there once the node is back and the cluster green (its copies resynchronised).
    for (const index of acknowledged) {
      const result = await service.search({ orgId, principal, query: `kestrel${index} osprey${index}`, limit: 1 });
      if (result.results[0]?.chunk.docId !== `procedure-${index}`) lost.push(index);
    }
    expect(lost, "acknowledged writes not found after the node's return").toEqual([]);
  });
});
