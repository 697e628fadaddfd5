import { mkdirSync, mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../config/load-config.js";
import { DocqaError } from "../errors/docqa-error.js";
import { createRagService } from "../service/create-rag-service.js";
import { findLocalModels } from "../testing/local-models.js";
import { isContinuousIntegration } from "../testing/shared-data.js";
import { prepareEmbeddings } from "./prepare-embeddings.js";
import { TransformersEmbeddings } from "./transformers-embeddings.js";

// A real model from ../shared/data/models (or $DOCQA_MODELS_DIR, or .models); nothing is downloaded.
const model = findLocalModels(["bge-small-en-v1.5", "all-MiniLM-L6-v2"])[0];

function collectingLogger() {
  const warnings: string[] = [];
  const ignore = () => {};
  return { warnings, logger: { debug: ignore, info: ignore, error: ignore, warn: (message: string) => warnings.push(message) } };
}

const cosine = (left: number[], right: number[]) => left.reduce((sum, value, index) => sum + value * (right[index] as number), 0);

describe("TransformersEmbeddings", () => {
  it("reports a missing model as model_unavailable, naming the directory", async () => {
    const missing = mkdtempSync(join(tmpdir(), "docqa-models-"));
    const embeddings = new TransformersEmbeddings({ modelName: "Xenova/absent-model", localModelPath: missing });
    const error = await embeddings.load().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(DocqaError.isInstance(error) && error.code).toBe("model_unavailable");
    expect((error as Error).message).toContain(`from ${missing}/Xenova/absent-model`);
  });

  it("in an embedding thread, reports a missing model as model_unavailable with the same message", async () => {
    const missing = mkdtempSync(join(tmpdir(), "docqa-models-"));
    const embeddings = new TransformersEmbeddings({ modelName: "Xenova/absent-model", localModelPath: missing, thread: "worker" });
    expect(embeddings.thread).toBe("worker");
    const error = await embeddings.load().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(DocqaError.isInstance(error) && error.code).toBe("model_unavailable");
    expect((error as Error).message).toContain(`from ${missing}/Xenova/absent-model`);
    await embeddings.dispose();
  });

  it("falls back to BM25 only with one warning when no model can be loaded", async () => {
    const { warnings, logger } = collectingLogger();
    const config = resolveConfig({
      embeddings: { modelPath: mkdtempSync(join(tmpdir(), "docqa-models-")), modelName: "Xenova/absent-model" },
    });
    const state = await prepareEmbeddings(config, {}, logger);
    expect(state.status).toBe("unavailable");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^embedding model unavailable; retrieval uses BM25 only: EMBED_MODEL_PATH \(.+\) holds no embedding model .*, so EMBED_MODEL_NAME Xenova\/absent-model cannot be loaded from it$/,
    );

    const service = createRagService({
      config: resolveConfig({ stores: { dataDir: mkdtempSync(join(tmpdir(), "docqa-")) } }, config),
      logger,
    });
    const principal = { userName: "ann@example.org", roles: [], groups: [] };
    await service.upsert({
      orgId: "org",
      principal,
      uploader: principal.userName,
      documents: { d: { title: "Badges", content: "Badges open every door." } },
    });
    const result = await service.predict({ orgId: "org", principal, query: "Which doors do badges open?" });
    expect(result.answer.callout_answer).toBe("Badges open every door. [Source: doc_1]");
    expect(await service.health()).toMatchObject({
      status: "degraded",
      embeddings: { status: "unavailable", model: "Xenova/absent-model" },
    });
    expect(warnings).toHaveLength(2);
    await service.close();
  });

  // In CI (CI=true) the models must be there: the tests run and fail without them.
  describe.skipIf(!model && !isContinuousIntegration())(
    `real model ${model?.id ?? "(none found under ../shared/data/models: skipped)"}`,
    () => {
      it("loads from a local directory and embeds meaningfully", async () => {
        expect(model, "no embedding model under ../shared/data/models").toBeDefined();
        const found = model as NonNullable<typeof model>;
        const embeddings = new TransformersEmbeddings({
          modelName: found.id,
          localModelPath: found.root,
          allowRemote: false,
          dtype: found.dtype,
        });
        const [cat, kitten, invoice] = await embeddings.embedDocuments([
          "A cat is sleeping on the sofa.",
          "A kitten naps on the couch.",
          "Submit the invoice to accounts payable.",
        ]);
        expect(cat).toHaveLength(found.dimension);
        expect(Math.hypot(...(cat as number[]))).toBeCloseTo(1, 4);
        expect(cosine(cat as number[], kitten as number[])).toBeGreaterThan(cosine(cat as number[], invoice as number[]) + 0.2);
        const query = await embeddings.embedQuery("Where is the cat?");
        expect(cosine(query, cat as number[])).toBeGreaterThan(cosine(query, invoice as number[]));
      });

      it("embeds in an embedding thread with the calling thread's vectors, off the calling thread", async () => {
        const found = model as NonNullable<typeof model>;
        const settings = { modelName: found.id, localModelPath: found.root, allowRemote: false, dtype: found.dtype };
        const texts = Array.from(
          { length: 40 },
          (_, index) => `Badge ${index} opens the doors of floor ${index % 7} between seven and nine.`,
        );
        const caller = new TransformersEmbeddings(settings);
        const worker = new TransformersEmbeddings({ ...settings, thread: "worker" });
        expect([caller.thread, worker.thread]).toEqual(["caller", "worker"]);
        await Promise.all([caller.load(), worker.load()]);
        /** This thread's CPU time (microseconds) spent by `work`. */
        const cpuOf = async (work: () => Promise<unknown>) => {
          const before = process.threadCpuUsage();
          await work();
          const { user, system } = process.threadCpuUsage(before);
          return user + system;
        };
        let inCaller: number[][] = [];
        let inWorker: number[][] = [];
        const callerCpu = await cpuOf(async () => {
          inCaller = await caller.embedDocuments(texts);
        });
        const workerCpu = await cpuOf(async () => {
          inWorker = await worker.embedDocuments(texts);
        });
        inWorker.forEach((vector, index) => {
          expect(cosine(vector, inCaller[index] as number[])).toBeCloseTo(1, 5);
        });
        expect(
          cosine(await worker.embedQuery("Which badge opens floor 3?"), await caller.embedQuery("Which badge opens floor 3?")),
        ).toBeCloseTo(1, 5);
        // The forward passes ran in the other thread: this one only posted the texts.
        expect(workerCpu).toBeLessThan(callerCpu / 4);
        // The thread, and its loaded model, outlive an idle moment.
        const thread = worker.threadId;
        expect(thread).toBeGreaterThan(0);
        await new Promise((resolve) => setTimeout(resolve, 50));
        await worker.embedQuery("Which floor?");
        expect(worker.threadId).toBe(thread);
        await Promise.all([caller.dispose(), worker.dispose()]);
      });

      it("loads the model EMBED_MODEL_PATH points at when it is a model's own folder and no name is set", async () => {
        const found = model as NonNullable<typeof model>;
        const { warnings, logger } = collectingLogger();
        const config = resolveConfig({ embeddings: { modelPath: join(found.root, found.id), dimension: found.dimension } });
        const state = await prepareEmbeddings(config, {}, logger);
        expect(state.status === "ready" ? state.model : state).toEqual({ id: found.id.split("/").at(-1), dimension: found.dimension });
        expect(warnings).toEqual([
          `the default embedding model Xenova/bge-base-en-v1.5 is not in EMBED_MODEL_PATH (${join(found.root, found.id)}); using the one model there, ${found.id.split("/").at(-1)} (${found.dimension} dimensions). Set EMBED_MODEL_NAME=${found.id.split("/").at(-1)} EMBED_DIMENSION=${found.dimension} to keep it`,
        ]);
        if (state.status === "ready") await state.dispose?.();
      });

      it("fails start-up when EMBED_DIMENSION does not match the model", async () => {
        const found = model as NonNullable<typeof model>;
        const wrong = found.dimension + 1;
        const config = resolveConfig({ embeddings: { modelPath: found.root, modelName: found.id, dimension: wrong, dtype: found.dtype } });
        await expect(prepareEmbeddings(config, {}, collectingLogger().logger)).rejects.toThrow(
          `EMBED_DIMENSION is ${wrong} but ${found.id} produces ${found.dimension}-dimensional vectors`,
        );
      });

      it("batches by token count with the same vectors, in input order, as the transformers.js pipeline", async () => {
        const found = model as NonNullable<typeof model>;
        const settings = { modelName: found.id, localModelPath: found.root, allowRemote: false };
        const batched = new TransformersEmbeddings({ ...settings, maxBatchTokens: 64 });
        const pipeline = new TransformersEmbeddings({ ...settings, engine: "pipeline" });
        expect(batched.dtype).toBe(found.dtype);
        const texts = [
          "Badges open every door of the office between seven and nine.",
          "Hi.",
          "The quarterly report is due on the first Monday after the end of the quarter, and late reports need a manager's approval.",
          "",
          "Hi.",
        ];
        const [ours, reference] = [await batched.embedDocuments(texts), await pipeline.embedDocuments(texts)];
        expect(ours).toHaveLength(texts.length);
        ours.forEach((vector, index) => {
          expect(cosine(vector, reference[index] as number[]), texts[index]).toBeGreaterThan(0.99);
        });
        expect(cosine(ours[1] as number[], ours[4] as number[])).toBeCloseTo(1, 5);
      });

      it("uses the one model of EMBED_MODEL_PATH when the default model is absent, with a warning", async () => {
        const found = model as NonNullable<typeof model>;
        const single = mkdtempSync(join(tmpdir(), "docqa-models-"));
        mkdirSync(join(single, dirname(found.id)), { recursive: true });
        symlinkSync(join(found.root, found.id), join(single, found.id));
        const { warnings, logger } = collectingLogger();
        const state = await prepareEmbeddings(
          resolveConfig({ embeddings: { modelPath: single }, stores: { dataDir: single } }),
          {},
          logger,
        );
        expect(state).toMatchObject({ status: "ready", model: { id: found.id, dimension: found.dimension } });
        expect(warnings).toEqual([
          `the default embedding model Xenova/bge-base-en-v1.5 is not in EMBED_MODEL_PATH (${single}); using the one model there, ${found.id} (${found.dimension} dimensions). Set EMBED_MODEL_NAME=${found.id} EMBED_DIMENSION=${found.dimension} to keep it`,
        ]);
      });

      it("names the models of EMBED_MODEL_PATH when the default is absent and there are several", async () => {
        const found = model as NonNullable<typeof model>;
        const several = mkdtempSync(join(tmpdir(), "docqa-models-"));
        for (const name of ["Org/first", "Org/second"]) {
          mkdirSync(join(several, "Org"), { recursive: true });
          symlinkSync(join(found.root, found.id), join(several, name));
        }
        const { warnings, logger } = collectingLogger();
        const state = await prepareEmbeddings(resolveConfig({ embeddings: { modelPath: several } }), {}, logger);
        expect(state.status).toBe("unavailable");
        expect(warnings).toHaveLength(1);
        expect(warnings[0]).toContain(
          `it holds 2 models: set EMBED_MODEL_NAME=Org/first EMBED_DIMENSION=${found.dimension}, or EMBED_MODEL_NAME=Org/second EMBED_DIMENSION=${found.dimension}`,
        );
      });
    },
  );
});
