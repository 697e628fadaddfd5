/**
 * Discovery of sentence-embedding models available on this machine, for tests and benchmarks
 * that need a real model: any directory under `../shared/data/models/`, `$DOCQA_MODELS_DIR` or
 * `.models/` laid out for transformers.js (`<id>/config.json`, `<id>/tokenizer.json` and
 * `<id>/onnx/model.onnx` or `model_quantized.onnx`). Nothing is downloaded.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { sharedDataPath } from "./shared-data.js";

/** A model found on disk. */
export interface LocalModel {
  /** The model id relative to `root`, for `EMBED_MODEL_NAME`, for example `Xenova/bge-small-en-v1.5`. */
  id: string;
  /** The directory to use as `EMBED_MODEL_PATH`. */
  root: string;
  /** Output dimension, from `config.json`'s `hidden_size`. */
  dimension: number;
  /** ONNX weights precision available: `fp32` (`model.onnx`) or `q8` (`model_quantized.onnx`). */
  dtype: "fp32" | "q8";
}

/** The model directories searched, in order. */
export function modelRoots(): string[] {
  const roots = [sharedDataPath("models"), process.env.DOCQA_MODELS_DIR, join(repositoryRoot(), ".models")];
  return roots.filter((root): root is string => root !== undefined && existsSync(root));
}

/** Every embedding model found under the {@link modelRoots}, preferring `preferred` ids first. */
export function findLocalModels(preferred: readonly string[] = []): LocalModel[] {
  const models: LocalModel[] = [];
  for (const root of modelRoots()) {
    const walk = (directory: string, depth: number) => {
      if (depth > 4) return;
      if (existsSync(join(directory, "config.json")) && existsSync(join(directory, "tokenizer.json"))) {
        const dtype = existsSync(join(directory, "onnx", "model.onnx"))
          ? "fp32"
          : existsSync(join(directory, "onnx", "model_quantized.onnx"))
            ? "q8"
            : undefined;
        const config = JSON.parse(readFileSync(join(directory, "config.json"), "utf8")) as {
          hidden_size?: number;
          architectures?: string[];
        };
        const isEncoder = !(config.architectures ?? []).some((name) => name.endsWith("ForSequenceClassification"));
        if (dtype && config.hidden_size && isEncoder)
          models.push({ id: relative(root, directory).split(sep).join("/"), root: resolve(root), dimension: config.hidden_size, dtype });
        return;
      }
      for (const entry of readdirSync(directory)) {
        const path = join(directory, entry);
        if (!entry.startsWith(".") && statSync(path).isDirectory()) walk(path, depth + 1);
      }
    };
    walk(root, 0);
  }
  const rank = (model: LocalModel) => {
    const index = preferred.findIndex((id) => model.id.endsWith(id));
    return index < 0 ? preferred.length : index;
  };
  return models.sort((left, right) => rank(left) - rank(right));
}

function repositoryRoot(): string {
  let directory = resolve(process.cwd());
  for (;;) {
    if (existsSync(join(directory, "package.json")) && existsSync(join(directory, "packages"))) return directory;
    const parent = resolve(directory, "..");
    if (parent === directory) return process.cwd();
    directory = parent;
  }
}
