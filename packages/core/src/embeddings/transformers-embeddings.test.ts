import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../config/load-config.js";
import { DocqaError } from "../errors/docqa-error.js";
import { createRagService } from "../service/create-rag-service.js";
import { isContinuousIntegration, sharedDataPath } from "../testing/shared-data.js";
import { prepareEmbeddings } from "./prepare-embeddings.js";
import { TransformersEmbeddings } from "./transformers-embeddings.js";

const repositoryRoot = fileURLToPath(new URL("../../../..", import.meta.url));
const modelName = "Xenova/bge-small-en-v1.5";
const modelDirectory = [sharedDataPath("models"), join(repositoryRoot, ".models")].find(
  (directory) => directory !== undefined && existsSync(join(directory, modelName, "onnx", "model.onnx")),
);

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
    const config = resolveConfig({ embedModelPath: mkdtempSync(join(tmpdir(), "docqa-models-")), embedModelName: "Xenova/absent-model" });
    const state = await prepareEmbeddings(config, {}, logger);
    expect(state.status).toBe("unavailable");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^embedding model unavailable; retrieval uses BM25 only: cannot load embedding model Xenova\/absent-model/);

    const service = createRagService({ config: { ...config, dataDir: mkdtempSync(join(tmpdir(), "docqa-")) }, logger });
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

  describe.skipIf(!modelDirectory && !isContinuousIntegration())(
    `real model ${modelName} (scripts/fetch-models.sh or ../shared/data/models)`,
    () => {
      it("loads from a local directory and embeds meaningfully", async () => {
        expect(modelDirectory, "no model files: run scripts/fetch-models.sh").toBeDefined();
        const embeddings = new TransformersEmbeddings({ modelName, localModelPath: modelDirectory, allowRemote: false });
        const [cat, kitten, invoice] = await embeddings.embedDocuments([
          "A cat is sleeping on the sofa.",
          "A kitten naps on the couch.",
          "Submit the invoice to accounts payable.",
        ]);
        expect(cat).toHaveLength(384);
        expect(Math.hypot(...(cat as number[]))).toBeCloseTo(1, 4);
        expect(cosine(cat as number[], kitten as number[])).toBeGreaterThan(cosine(cat as number[], invoice as number[]) + 0.2);
        const query = await embeddings.embedQuery("Where is the cat?");
        expect(cosine(query, cat as number[])).toBeGreaterThan(cosine(query, invoice as number[]));
      });

      it("fails start-up when EMBED_DIMENSION does not match the model", async () => {
        const config = resolveConfig({ embedModelPath: modelDirectory, embedModelName: modelName, embedDimension: 768 });
        await expect(prepareEmbeddings(config, {}, collectingLogger().logger)).rejects.toThrow(
          "EMBED_DIMENSION is 768 but Xenova/bge-small-en-v1.5 produces 384-dimensional vectors",
        );
      });
    },
  );
});
