/**
 * Discovery of sentence-embedding models already on disk, laid out for transformers.js:
 * `<root>/<id>/config.json`, `<root>/<id>/tokenizer.json` and `<root>/<id>/onnx/model.onnx`
 * (or `model_quantized.onnx`). Nothing is downloaded. Used by `docqa eval` (the dense model check)
 * and by tests and benchmarks that need a real model.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";

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

/** How deep below a root a model directory may sit (`Xenova/bge-small-en-v1.5` is depth 2). */
const maximumDepth = 4;

/**
 * Every embedding (encoder) model under `roots`, in root order, with ids matching `preferred`
 * (by suffix) first. Sequence-classification models (cross-encoders) are left out.
 *
 * @param roots - directories to search; missing ones are ignored.
 * @param preferred - model id suffixes to rank first, in order, for example `["bge-small-en-v1.5"]`.
 */
export function findEmbeddingModels(roots: readonly string[], preferred: readonly string[] = []): LocalModel[] {
  const models: LocalModel[] = [];
  for (const root of roots) {
    if (!existsSync(root)) continue;
    const walk = (directory: string, depth: number) => {
      if (depth > maximumDepth) return;
      if (existsSync(join(directory, "config.json")) && existsSync(join(directory, "tokenizer.json"))) {
        const model = readModel(root, directory);
        if (model) models.push(model);
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

function readModel(root: string, directory: string): LocalModel | undefined {
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
  if (!dtype || !config.hidden_size || !isEncoder) return undefined;
  // A root that is itself a model's folder: the model is that folder's name, under its parent.
  if (resolve(directory) === resolve(root))
    return { id: basename(resolve(root)), root: dirname(resolve(root)), dimension: config.hidden_size, dtype };
  return { id: relative(root, directory).split(sep).join("/"), root: resolve(root), dimension: config.hidden_size, dtype };
}
