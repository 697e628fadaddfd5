/**
 * Readiness of a service (`RagService.readiness`, served as `/readyz`): whether every configured
 * backend answers now. Each store is asked one light request (`ping`), all at once, each within
 * `READINESS_TIMEOUT_MS`; one that fails or does not answer in time makes the service not ready,
 * and the report names it. Liveness (`/healthz`, `/health`) never waits for a backend; readiness
 * always does, within the timeout.
 *
 * The same check guards ingestion: a job is accepted only when the stores it writes (vector
 * index, keyword index, registry, job store) are ready ({@link assertStoresWritable}).
 */
import { DocqaError } from "../errors/docqa-error.js";
import type { JobStore } from "../jobs/job-store.js";
import type { MemoryStore } from "../memory/memory-store.js";
import type { DocumentStores } from "../stores/document-stores.js";
import type { StoreHealth } from "../stores/vector-index.js";
import { unwrapped } from "../telemetry/override-methods.js";
import type { PreparedRuntime } from "./prepare-runtime.js";

/** What a readiness check looked at. */
export type ReadinessRole = "startup" | "vector" | "keyword" | "registry" | "jobs" | "memory";

/** The outcome of one readiness check. */
export interface ReadinessCheck {
  /**
   * What the backend serves: `vector` (vector index), `keyword` (BM25 index), `registry`
   * (committed document versions), `jobs` (ingestion jobs), `memory` (conversation memory), or
   * `startup` (the service's own preparation: stores opened, embedding model loaded).
   */
  role: ReadinessRole;
  /** The backend's name: `embedded`, `milvus`, `opensearch`, `elasticsearch`, `sqlite`, `redis`, `in-memory`, `docqa`. */
  backend: string;
  /**
   * `up`; `degraded` when the backend answers and serves but with less redundancy than it was
   * set up with (a search engine cluster that lost a node: see `StoreHealth`), which keeps the
   * service ready; `down` when it does not answer in time.
   */
  status: "up" | "degraded" | "down";
  /** Milliseconds until the answer (or until the timeout). */
  latencyMs: number;
  /** Why the backend is down. */
  error?: string | undefined;
  /** Why the backend is degraded. */
  degraded?: string | undefined;
}

/** The readiness of a service. */
export interface ReadinessReport {
  /** True when no check is down (a degraded backend still serves). */
  ready: boolean;
  /** One check per role, in the order of {@link ReadinessRole}. */
  checks: ReadinessCheck[];
  /**
   * Which backends are down and why, in one sentence, for a service that is not ready; which are
   * degraded and why, for a ready service with a degraded backend; absent otherwise.
   */
  detail?: string | undefined;
}

/** Something with a `ping` and a name. */
interface Pingable {
  readonly name: string;
  // biome-ignore lint/suspicious/noConfusingVoidType: a healthy store may resolve with nothing (`async ping() {}`).
  ping(): Promise<void | StoreHealth>;
}

/** What a readiness run checks. */
export interface ReadinessTargets {
  stores?: DocumentStores | undefined;
  jobStore?: JobStore | undefined;
  memoryStore?: MemoryStore | undefined;
}

const roleNames: Record<ReadinessRole, string> = {
  startup: "start-up",
  vector: "vector index",
  keyword: "keyword index",
  registry: "document registry",
  jobs: "job store",
  memory: "memory store",
};

/**
 * Pings every target at once, each within `timeoutMs`. A backend serving several roles (Milvus
 * as vector and keyword index, Redis as job and memory store) is asked once per object and
 * reported per role.
 */
export async function checkReadiness(targets: ReadinessTargets, timeoutMs: number): Promise<ReadinessReport> {
  const entries: [ReadinessRole, Pingable][] = [];
  const { stores } = targets;
  if (stores) {
    if (stores.vector) entries.push(["vector", stores.vector]);
    entries.push(["keyword", stores.keyword]);
    if (hasPing(stores.registry) && (unwrapped(stores.registry) as unknown) !== unwrapped(stores.keyword)) {
      entries.push(["registry", stores.registry]);
    }
  }
  if (targets.jobStore) entries.push(["jobs", targets.jobStore]);
  if (targets.memoryStore) entries.push(["memory", targets.memoryStore]);
  const pings = new Map<Pingable, Promise<Omit<ReadinessCheck, "role" | "backend">>>();
  const checks = await Promise.all(
    entries.map(async ([role, target]) => {
      // Compared unwrapped: the service's stores are wrapped for telemetry, each role apart.
      let outcome = pings.get(unwrapped(target));
      if (!outcome) {
        outcome = timedPing(target, timeoutMs);
        pings.set(unwrapped(target), outcome);
      }
      const result = await outcome;
      // Named after the answer: a store may learn its engine on first contact (Elasticsearch or OpenSearch).
      return { role, backend: target.name, ...result } satisfies ReadinessCheck;
    }),
  );
  return report(checks);
}

/**
 * The readiness of a prepared service: start-up first (the runtime must be prepared within
 * `timeoutMs`: stores opened, embedding model loaded or known unavailable), then every store.
 */
export async function serviceReadiness(prepared: PreparedRuntime, timeoutMs: number): Promise<ReadinessReport> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let targets: ReadinessTargets;
  try {
    const [runtime, jobStore, memoryStore] = await withinTimeout(
      Promise.all([prepared.runtime(), prepared.jobStore(), prepared.memoryStore()]),
      timeoutMs,
      `still starting after ${timeoutMs} ms (opening stores, loading the embedding model)`,
    );
    targets = { stores: runtime.stores, jobStore, memoryStore };
  } catch (error) {
    const message = DocqaError.isInstance(error) ? error.publicMessage : (error as Error).message;
    return report([{ role: "startup", backend: "docqa", status: "down", latencyMs: elapsed(), error: message }]);
  }
  const startup: ReadinessCheck = { role: "startup", backend: "docqa", status: "up", latencyMs: elapsed() };
  const stores = await checkReadiness(targets, timeoutMs);
  return report([startup, ...stores.checks]);
}

/**
 * A report from checks: ready when none is down, with a sentence naming those that are down (or,
 * when none is, those that are degraded).
 */
export function report(checks: ReadinessCheck[]): ReadinessReport {
  const down = checks.filter((check) => check.status === "down");
  if (down.length > 0) return { ready: false, checks, detail: describeDown(down) };
  const degraded = checks.filter((check) => check.status === "degraded");
  if (degraded.length === 0) return { ready: true, checks };
  return { ready: true, checks, detail: describeDegraded(degraded) };
}

/**
 * Resolves when the stores an ingestion job writes (vector index, keyword index, registry, job
 * store) answer within `timeoutMs`.
 *
 * @throws {DocqaError} `store_unavailable` naming each store that is down and why.
 */
export async function assertStoresWritable(targets: Pick<ReadinessTargets, "stores" | "jobStore">, timeoutMs: number): Promise<void> {
  const readiness = await checkReadiness(targets, timeoutMs);
  if (readiness.ready) return;
  throw new DocqaError("store_unavailable", `the ingestion was not accepted: ${readiness.detail}; retry when the store is back`, {
    component: "service",
    details: readiness.checks.filter((check) => check.status === "down"),
  });
}

function describeDown(down: readonly ReadinessCheck[]): string {
  return down.map((check) => `${check.backend} (${roleNames[check.role]}) is down: ${check.error ?? "no answer"}`).join("; ");
}

function describeDegraded(degraded: readonly ReadinessCheck[]): string {
  return degraded
    .map((check) => `${check.backend} (${roleNames[check.role]}) is degraded: ${check.degraded ?? "reduced redundancy"}`)
    .join("; ");
}

/**
 * `promise`, or a rejection with `message` after `timeoutMs`.
 *
 * @throws {Error} `message` on timeout; whatever `promise` rejects with.
 */
export async function withinTimeout<T>(promise: Promise<T>, timeoutMs: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  promise.catch(() => {});
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), Math.max(1, timeoutMs));
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

async function timedPing(target: Pingable, timeoutMs: number): Promise<Omit<ReadinessCheck, "role" | "backend">> {
  const started = performance.now();
  try {
    const health = await withinTimeout(target.ping(), timeoutMs, `no answer within ${timeoutMs} ms (READINESS_TIMEOUT_MS)`);
    const latencyMs = Math.round(performance.now() - started);
    if (health?.degraded) return { status: "degraded", latencyMs, degraded: health.degraded };
    return { status: "up", latencyMs };
  } catch (error) {
    return {
      status: "down",
      latencyMs: Math.round(performance.now() - started),
      error: DocqaError.isInstance(error) ? error.publicMessage : (error as Error).message,
    };
  }
}

function hasPing(value: unknown): value is Pingable {
  return typeof (value as { ping?: unknown }).ping === "function";
}
