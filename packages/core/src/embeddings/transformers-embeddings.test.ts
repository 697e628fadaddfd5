import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../config/load-config.js";
import { DocqaError } from "../errors/docqa-error.js";
import { createRagService } from "../service/create-rag-service.js";
import { findLocalModels } from "../testing/local-models.js";
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

  it("falls back to BM25 only with one warning when no model can be loaded", async () => {
    const { warnings, logger } = collectingLogger();
    const config = resolveConfig({
      embeddings: { modelPath: mkdtempSync(join(tmpdir(), "docqa-models-")), modelName: "Xenova/absent-model" },
    });
    const state = await prepareEmbeddings(config, {}, logger);
    expect(state.status).toBe("unavailable");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^embedding model unavailable; retrieval uses BM25 only: cannot load embedding model Xenova\/absent-model/);

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

  describe.skipIf(!model)(`real model ${model?.id ?? "(none found under ../shared/data/models: skipped)"}`, () => {
    it("loads from a local directory and embeds meaningfully", async () => {
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

    it("fails start-up when EMBED_DIMENSION does not match the model", async () => {
      const found = model as NonNullable<typeof model>;
      const wrong = found.dimension + 1;
      const config = resolveConfig({ embeddings: { modelPath: found.root, modelName: found.id, dimension: wrong, dtype: found.dtype } });
      await expect(prepareEmbeddings(config, {}, collectingLogger().logger)).rejects.toThrow(
        `EMBED_DIMENSION is ${wrong} but ${found.id} produces ${found.dimension}-dimensional vectors`,
      );
    });
  });
});
