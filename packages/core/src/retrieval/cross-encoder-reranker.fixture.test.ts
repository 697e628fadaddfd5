/**
 * The real `CrossEncoderReranker` scoring path (pair tokenisation, the ONNX session, the logits,
 * the logistic) on a model with a known logit, in the caller thread and in the reranker thread.
 * The model is `test-fixtures/tiny-cross-encoder` (built by `scripts/make-tiny-cross-encoder.py`):
 * logit = 0.1 × (passage tokens − query tokens). Its tokenizer is a real BERT one, copied from a
 * model under ../shared/data/models into a temporary model directory.
 */
import { copyFileSync, cpSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { findLocalModels } from "../testing/local-models.js";
import { isContinuousIntegration } from "../testing/shared-data.js";
import { textChunk as chunk } from "../testing/text-chunk.js";
import { CrossEncoderReranker } from "./cross-encoder-reranker.js";

/** A model with the uncased BERT vocabulary, whose tokenizer the fixture borrows. */
const bert = findLocalModels(["all-MiniLM-L6-v2", "bge-small-en-v1.5"])[0];

/** A model directory `tiny-cross-encoder/` with the fixture's config and graph and `bert`'s tokenizer. */
function modelDirectory(): string {
  const root = mkdtempSync(join(tmpdir(), "docqa-cross-encoder-"));
  const model = join(root, "tiny-cross-encoder");
  cpSync(fileURLToPath(new URL("../../test-fixtures/tiny-cross-encoder", import.meta.url)), model, { recursive: true });
  const tokenizer = join((bert as NonNullable<typeof bert>).root, (bert as NonNullable<typeof bert>).id);
  for (const file of ["tokenizer.json", "tokenizer_config.json"]) copyFileSync(join(tokenizer, file), join(model, file));
  return root;
}

const logistic = (logit: number) => 1 / (1 + Math.exp(-logit));

// In CI (CI=true) the shared models must be there: the tests run and fail without them.
describe.skipIf(!bert && !isContinuousIntegration())("CrossEncoderReranker on a real ONNX session", () => {
  const rerankers: CrossEncoderReranker[] = [];
  afterAll(async () => {
    for (const reranker of rerankers) await reranker.dispose();
  });
  const create = (thread: "caller" | "worker") => {
    expect(bert, "no BERT model under ../shared/data/models").toBeDefined();
    const reranker = new CrossEncoderReranker({
      modelName: "tiny-cross-encoder",
      localModelPath: modelDirectory(),
      allowRemote: false,
      batchSize: 2,
      thread,
    });
    rerankers.push(reranker);
    return reranker;
  };

  it("scores each (query, passage) pair with the model's logit through the logistic, in the caller thread and in the reranker thread alike", async () => {
    const passages = [chunk("cat"), chunk("the cat sat on the mat"), chunk("a"), chunk("two short words")];
    const inCaller = await create("caller").score("where is the cat", passages);
    const inThread = await create("worker").score("where is the cat", passages);
    // [CLS] where is the cat [SEP] = 6 query tokens; "cat" [SEP] = 2 passage tokens: 0.1 × (2 − 6).
    expect(inCaller[0]).toBeCloseTo(logistic(-0.4), 6);
    // "the cat sat on the mat" [SEP] = 7 passage tokens.
    expect(inCaller[1]).toBeCloseTo(logistic(0.1), 6);
    expect(inCaller[2]).toBeCloseTo(logistic(-0.4), 6);
    expect(inCaller[3]).toBeCloseTo(logistic(-0.2), 6);
    expect(inThread).toEqual(inCaller);
  });
});
