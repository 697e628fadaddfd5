/**
 * Waiting for work in flight when something closes (a worker pool, a model thread, the HTTP
 * servers), bounded in time: a thread must not be terminated while onnxruntime-node runs in it,
 * which aborts the whole process, so its owner waits for the calls it handed out before ending it.
 */
import { setTimeout as sleep } from "node:timers/promises";

/**
 * Waits until `tasks` (a live set: its owner removes each task once it has settled) is empty or
 * `timeoutMs` have passed; resolves true when every task settled. The timer does not keep the
 * process alive (a started task does, through its worker's port).
 */
export function settleAll(tasks: ReadonlySet<Promise<unknown>>, timeoutMs: number): Promise<boolean> {
  return settlesWithin(drained(tasks), timeoutMs);
}

/**
 * True when `work` settles (fulfils or rejects) within `timeoutMs` milliseconds, false when the
 * time runs out first; `work` is left running either way. The timer does not keep the process
 * alive, and is cleared once `work` settles.
 */
export async function settlesWithin(work: Promise<unknown>, timeoutMs: number): Promise<boolean> {
  const timer = new AbortController();
  const settled = work.then(
    () => true,
    () => true,
  );
  const timedOut = sleep(timeoutMs, false, { ref: false, signal: timer.signal }).catch(() => false);
  try {
    return await Promise.race([settled, timedOut]);
  } finally {
    timer.abort();
  }
}

/** Resolves once the live set `tasks` is empty (tasks added meanwhile are awaited too). */
async function drained(tasks: ReadonlySet<Promise<unknown>>): Promise<void> {
  while (tasks.size > 0) await Promise.allSettled([...tasks]);
}
