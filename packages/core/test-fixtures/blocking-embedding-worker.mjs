// A stand-in for the embedding thread's entry (embedding-worker.ts) in tests: it holds its thread
// synchronously for `settings.threads` milliseconds, as onnxruntime-node does during a forward
// pass, then answers one vector [text length, 1] per text.
export default function embed({ settings, texts }) {
  const until = Date.now() + settings.threads;
  while (Date.now() < until) {
    // blocking, like a forward pass
  }
  const data = new Float32Array(texts.length * 2);
  texts.forEach((text, row) => {
    data[row * 2] = text.length;
    data[row * 2 + 1] = 1;
  });
  return { ok: true, data, dimension: 2 };
}
