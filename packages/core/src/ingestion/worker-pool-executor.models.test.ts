/**
 * Embedding in the ingestion worker threads with a real model: a large call shared between two
 * workers gives the vectors one worker gives, and a reindex computes its vectors in the workers.
 * Needs the built worker entry (`npm run build`); part of `npm run test:models`.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { resolveConfig } from "../config/load-config.js";
import { createRagService } from "../service/create-rag-service.js";
import type { RagService } from "../service/rag-service.js";
import { findLocalModels } from "../testing/local-models.js";
import { createRecordingLogger } from "../testing/recording-logger.js";
import { isContinuousIntegration } from "../testing/shared-data.js";
import { createWorkerPoolExecutor, ingestionWorkerUrl } from "./worker-pool-executor.js";

const built = ingestionWorkerUrl() !== undefined;
const model = findLocalModels(["all-MiniLM-L6-v2", "bge-small-en-v1.5"])[0];
const principal = { userName: "ann@example.org", roles: [], groups: [] };
const services: RagService[] = [];

afterEach(async () => {
  for (const service of services.splice(0)) await service.close();
});

describe.skipIf((!built || !model) && !isContinuousIntegration())(
  "embedding in the ingestion workers (needs `npm run build` and a model)",
  () => {
    it("embeds in a worker with the worker's own model; with two threads a large call is shared between them and gives the same vectors", async () => {
      const local = model as NonNullable<typeof model>;
      const config = resolveConfig({
        stores: { dataDir: mkdtempSync(join(tmpdir(), "docqa-workers-")) },
        embeddings: {
          provider: "transformers",
          modelName: local.id,
          modelPath: local.root,
          dimension: local.dimension,
          dtype: local.dtype,
          allowRemote: false,
        },
      });
      const texts = Array.from({ length: 160 }, (_, index) => `Visitor ${index} signs in at desk ${index % 7} before parking.`);
      const embedWith = async (threads: number) => {
        const executor = createWorkerPoolExecutor({ config, logger: createRecordingLogger(), refresh: async () => {}, threads });
        try {
          return (await executor.embedDocuments(texts)) as number[][];
        } finally {
          await executor.close();
        }
      };
      const alone = await embedWith(1);
      expect(alone.map((vector) => vector.length)).toEqual(texts.map(() => local.dimension));
      expect(Math.hypot(...(alone[0] as number[]))).toBeCloseTo(1, 4);
      // Whichever worker embeds a text, its vector agrees with the one-worker vector (not exactly:
      // int8 models quantize activations per batch, so a text's vector moves slightly with the
      // batch it shares; one-thread workers batch fewer texts; about 0.989 at worst here).
      const shared = await embedWith(2);
      const agreement = shared.map((vector, index) =>
        vector.reduce((sum, value, at) => sum + value * ((alone[index] as number[])[at] as number), 0),
      );
      expect(Math.min(...agreement)).toBeGreaterThanOrEqual(0.98);
    });

    it("reindexes in the workers: the new model's vectors are computed there, not in the serving thread", async () => {
      const local = model as NonNullable<typeof model>;
      const dataDir = mkdtempSync(join(tmpdir(), "docqa-workers-"));
      const base = {
        stores: { dataDir },
        models: { provider: "extractive" as const },
        logging: { level: "debug" as const },
        ingestion: { useRaptor: false },
      };
      const bm25 = createRagService({ config: resolveConfig({ embeddings: { provider: "none" } }, base), logger: createRecordingLogger() });
      await bm25.upsert({
        orgId: "org",
        principal,
        uploader: principal.userName,
        documents: Object.fromEntries(
          Array.from({ length: 80 }, (_, index) => [
            `doc-${index}`,
            { title: `Note ${index}`, content: `Harbour ${index} opens at dawn.` },
          ]),
        ),
      });
      await bm25.close();
      const logger = createRecordingLogger();
      const embeddings = {
        provider: "transformers" as const,
        modelName: local.id,
        modelPath: local.root,
        dimension: local.dimension,
        dtype: local.dtype,
        allowRemote: false,
      };
      const service = createRagService({ config: resolveConfig({ embeddings }, base), logger });
      services.push(service);
      const job = await service.reindex({ orgId: "org" });
      expect([job.state, job.model?.id]).toEqual(["succeeded", local.id]);
      expect((await service.reindexStatus({ orgId: "org" })).vectors).toBe("current");
      // A worker's log lines travel on a BroadcastChannel, not on the port that carries its results:
      // the last lines may arrive after the job has succeeded.
      const embedded = () => logger.lines.filter((line) => line.message === "texts embedded");
      await vi.waitFor(() => expect(embedded().reduce((sum, line) => sum + (line.fields.texts as number), 0)).toBe(80), {
        timeout: 10_000,
      });
      expect(embedded().every((line) => line.fields.thread === "ingestion-worker" && line.fields.model === local.id)).toBe(true);
    });
  },
);
