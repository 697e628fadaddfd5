/**
 * Start-up of the embedding model when little or nothing is configured: with nothing set, no
 * network call and no warning, BM25 only, and the service's health says why; `EMBED_MODEL_PATH`
 * without a model name gives a clear reason naming the models there, without trying to load one.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { resolveConfig } from "../config/load-config.js";
import { createRagService } from "../service/create-rag-service.js";
import { noEmbeddingModelReason, prepareEmbeddings } from "./prepare-embeddings.js";

const directories: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function temporaryDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), "docqa-prepare-embeddings-"));
  directories.push(directory);
  return directory;
}

function recordingLogger() {
  const lines: { level: string; message: string }[] = [];
  const at = (level: string) => (message: string) => lines.push({ level, message });
  return { lines, logger: { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") } };
}

/** A folder laid out like a transformers.js model (its weights empty: it is never loaded here). */
function fakeModel(root: string, id: string, dimension: number): void {
  const folder = join(root, id);
  mkdirSync(join(folder, "onnx"), { recursive: true });
  writeFileSync(join(folder, "config.json"), JSON.stringify({ architectures: ["BertModel"], hidden_size: dimension }));
  writeFileSync(join(folder, "tokenizer.json"), "{}");
  writeFileSync(join(folder, "onnx", "model_quantized.onnx"), "");
}

describe("prepareEmbeddings with little configured", () => {
  it("with nothing set: no network call, no warning, BM25 only, and the health says why", async () => {
    const fetched = vi.spyOn(globalThis, "fetch");
    const { lines, logger } = recordingLogger();
    const config = resolveConfig({ stores: { dataDir: temporaryDirectory() }, models: { provider: "extractive" } });
    expect([config.embeddings.chosen, config.embeddings.allowRemote]).toEqual([false, false]);
    // Parsing the resolved configuration again (as createRagService does) keeps it unchosen.
    expect(resolveConfig({}, config).embeddings.chosen).toBe(false);
    expect(await prepareEmbeddings(config, {}, logger)).toEqual({ status: "disabled", reason: noEmbeddingModelReason });
    expect(lines.filter((line) => line.level === "warn" || line.level === "error")).toEqual([]);

    const service = createRagService({ config, logger });
    await service.ready();
    expect(await service.health()).toMatchObject({
      status: "ok",
      embeddings: { status: "disabled", model: "Xenova/bge-base-en-v1.5", detail: noEmbeddingModelReason },
    });
    await service.close();
    expect(fetched).not.toHaveBeenCalled();
    expect(lines.filter((line) => line.level === "warn" || line.level === "error")).toEqual([]);
  });

  it("counts a model as chosen once a setting names one", () => {
    expect(resolveConfig({ embeddings: { modelPath: "/models" } }).embeddings.chosen).toBe(true);
    expect(resolveConfig({ embeddings: { modelName: "Xenova/bge-small-en-v1.5" } }).embeddings.chosen).toBe(true);
    expect(resolveConfig({ embeddings: { allowRemote: true } }).embeddings.chosen).toBe(true);
    expect(resolveConfig({ embeddings: { provider: "none" } }).embeddings.chosen).toBe(true);
  });

  it("EMBED_MODEL_PATH holding several models and no EMBED_MODEL_NAME: a reason naming them and the settings to pick one", async () => {
    const models = temporaryDirectory();
    fakeModel(models, "Xenova/all-MiniLM-L6-v2", 384);
    fakeModel(models, "Xenova/bge-small-en-v1.5", 384);
    const { lines, logger } = recordingLogger();
    const state = await prepareEmbeddings(resolveConfig({ embeddings: { modelPath: models } }), {}, logger);
    const reason = `EMBED_MODEL_PATH (${models}) does not hold Xenova/bge-base-en-v1.5 (the default EMBED_MODEL_NAME); it holds 2 models: set EMBED_MODEL_NAME=Xenova/all-MiniLM-L6-v2 EMBED_DIMENSION=384, or EMBED_MODEL_NAME=Xenova/bge-small-en-v1.5 EMBED_DIMENSION=384`;
    expect(state).toEqual({ status: "unavailable", reason });
    expect(lines).toEqual([{ level: "warn", message: `embedding model unavailable; retrieval uses BM25 only: ${reason}` }]);
  });

  it("EMBED_MODEL_NAME that EMBED_MODEL_PATH does not hold: a reason naming what it holds, nothing loaded", async () => {
    const models = temporaryDirectory();
    fakeModel(models, "Xenova/all-MiniLM-L6-v2", 384);
    const state = await prepareEmbeddings(
      resolveConfig({ embeddings: { modelPath: join(models, "Xenova"), modelName: "Xenova/all-MiniLM-L6-v2", dimension: 384 } }),
      {},
      recordingLogger().logger,
    );
    expect(state).toEqual({
      status: "unavailable",
      reason: `EMBED_MODEL_PATH (${join(models, "Xenova")}) does not hold EMBED_MODEL_NAME Xenova/all-MiniLM-L6-v2; it holds one model: set EMBED_MODEL_NAME=all-MiniLM-L6-v2 EMBED_DIMENSION=384`,
    });
  });
});
