// Worker entry of the executor's shutdown test (worker-pool-executor.test.ts), in place of
// ingestion-worker.js: an `embed` task blocks its thread as onnxruntime-node's synchronous
// inference does, never yielding to the event loop. Its texts are a command and file paths:
// ["block", started, gate] writes `started`, then blocks until the file `gate` exists;
// ["until-stop", started] writes `started`, then blocks until the pool's stop flag is set.
// Each returns one vector, [1] or [2], so the test can tell the tasks apart.
import { existsSync, writeFileSync } from "node:fs";
import { workerData } from "piscina";

const pause = new Int32Array(new SharedArrayBuffer(4));
const blockUntil = (done) => {
  while (!done()) Atomics.wait(pause, 0, 0, 5);
};

export default function runTask(task) {
  const [command, started, gate] = task.texts;
  writeFileSync(started, "");
  if (command === "block") blockUntil(() => existsSync(gate));
  else blockUntil(() => Atomics.load(workerData.stop, 0) === 1);
  return { ok: true, value: [[command === "block" ? 1 : 2]] };
}
