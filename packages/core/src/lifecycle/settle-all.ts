/**
 * Waiting for work in flight when something closes (a worker pool, the embedding thread), bounded
 * in time: a thread must not be terminated while onnxruntime-node runs in it, which aborts the
 * whole process, so its owner waits for the calls it handed out before ending it.
 */
import { setTimeout as sleep } from "node:timers/promises";

/**
 * Waits until `tasks` (a live set: settled tasks leave it) is empty or `timeoutMs` have passed;
 * resolves true when every task settled. The timer does not keep the process alive (a started
 * task does, through its worker's port).
 */
export async function settleAll(tasks: ReadonlySet<Promise<unknown>>, timeoutMs: number): Promise<boolean> {
  const timer = new AbortController();
  const timedOut = sleep(timeoutMs, "timed out", { ref: false, signal: timer.signal }).catch(() => undefined);
  try {
    while (tasks.size > 0) if ((await Promise.race([Promise.allSettled([...tasks]), timedOut])) === "timed out") return false;
    return true;
  } finally {
    timer.abort();
  }
}
