// A stand-in for the model threads' entry (threads/model-worker.ts) in tests. It holds its thread
// synchronously, as onnxruntime-node does during a forward pass, and answers:
// - `embed`: after `settings.threads` milliseconds, one vector [text length, 1] per text;
// - `rerank`: per batch of `settings.batchSize` passages (a forward pass), after the milliseconds
//   of `settings.modelName` (`block-150`), one score per passage, its length / 1000, stopping
//   between batches once `cancel[0]` is 1; it posts `{ query, scored }` after each batch on the
//   BroadcastChannel `blocking-model-worker`. The model `absent` cannot be loaded
//   (`model_unavailable`), the model `crash` throws out of the entry.
import { BroadcastChannel } from "node:worker_threads";

const progress = new BroadcastChannel("blocking-model-worker");
progress.unref();

function hold(milliseconds) {
  const until = Date.now() + milliseconds;
  while (Date.now() < until) {
    // blocking, like a forward pass
  }
}

function embed({ settings, texts }) {
  hold(settings.threads);
  const data = new Float32Array(texts.length * 2);
  texts.forEach((text, row) => {
    data[row * 2] = text.length;
    data[row * 2 + 1] = 1;
  });
  return { ok: true, result: { data, dimension: 2 } };
}

function rerank({ settings, query, passages, cancel }) {
  if (settings.modelName === "absent") {
    return {
      ok: false,
      error: { code: "model_unavailable", message: "cannot load reranker model absent", component: "reranker" },
    };
  }
  if (settings.modelName === "crash") throw new Error("the fixture crashed");
  const blockMs = Number(settings.modelName.replace("block-", ""));
  const scores = [];
  for (let start = 0; start < passages.length && Atomics.load(cancel, 0) === 0; start += settings.batchSize) {
    hold(blockMs);
    for (const passage of passages.slice(start, start + settings.batchSize)) scores.push(passage.length / 1000);
    progress.postMessage({ query, scored: scores.length });
  }
  return { ok: true, result: scores };
}

export default function run(task) {
  return task.kind === "embed" ? embed(task) : rerank(task);
}
