import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { resolveEmbeddingDtype } from "./resolve-embedding-dtype.js";

function modelDirectory(files: string[]): string {
  const root = mkdtempSync(join(tmpdir(), "docqa-dtype-"));
  mkdirSync(join(root, "Org", "model", "onnx"), { recursive: true });
  for (const file of files) writeFileSync(join(root, "Org", "model", "onnx", file), "");
  return root;
}

describe("resolveEmbeddingDtype", () => {
  it("keeps an explicit precision", () => {
    expect(resolveEmbeddingDtype("fp16", "Org/model", modelDirectory(["model.onnx"]))).toBe("fp16");
  });

  it("prefers the fp32 file, then the quantized one, in a local directory", () => {
    expect(resolveEmbeddingDtype("auto", "Org/model", modelDirectory(["model.onnx", "model_quantized.onnx"]))).toBe("fp32");
    expect(resolveEmbeddingDtype("auto", "Org/model", modelDirectory(["model_quantized.onnx"]))).toBe("q8");
    expect(resolveEmbeddingDtype("auto", "Org/model", modelDirectory([]))).toBe("fp32");
  });

  it("loads int8 weights from the cache or the hub", () => {
    expect(resolveEmbeddingDtype("auto", "Org/model", undefined)).toBe("q8");
  });
});
