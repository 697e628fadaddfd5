/**
 * `EMBED_DTYPE=auto`: which ONNX weights file of a transformers.js model to load, from what is on
 * disk. transformers.js names the files by precision: `onnx/model.onnx` (fp32),
 * `onnx/model_quantized.onnx` (q8, int8 dynamic quantization), `onnx/model_fp16.onnx`, ...
 */
import { existsSync } from "node:fs";
import { join } from "node:path";

/** ONNX weights precisions transformers.js loads. */
export type EmbeddingDtype = "fp32" | "fp16" | "q8" | "int8" | "uint8" | "q4";

/** `EMBED_DTYPE`: a precision, or `auto` to pick from the files present. */
export type EmbeddingDtypeSetting = EmbeddingDtype | "auto";

/**
 * The precision to load.
 *
 * With `auto`: in a local model directory (`EMBED_MODEL_PATH`), `fp32` when `onnx/model.onnx`
 * is there, else `q8` when `onnx/model_quantized.onnx` is, else `fp32` (whose missing file the
 * load error then names). Without a local directory (the transformers.js cache or the Hugging
 * Face hub), `q8`: int8 weights are a quarter of the download and run about twice as fast on a
 * CPU, with the same retrieval quality on SciFact for all-MiniLM-L6-v2 (int8 0.6469, fp32 0.6451
 * nDCG@10, `../shared/data/models/README.md`).
 *
 * @param setting - `EMBED_DTYPE`.
 * @param modelName - `EMBED_MODEL_NAME`, a folder below `localModelPath`.
 * @param localModelPath - `EMBED_MODEL_PATH`, or undefined.
 */
export function resolveEmbeddingDtype(
  setting: EmbeddingDtypeSetting,
  modelName: string,
  localModelPath: string | undefined,
): EmbeddingDtype {
  if (setting !== "auto") return setting;
  if (localModelPath === undefined) return "q8";
  const onnx = join(localModelPath, modelName, "onnx");
  if (existsSync(join(onnx, "model.onnx"))) return "fp32";
  if (existsSync(join(onnx, "model_quantized.onnx"))) return "q8";
  return "fp32";
}
