/**
 * Real embedding models for tests and benchmarks: any model under `../shared/data/models/`,
 * `$DOCQA_MODELS_DIR` or `.models/` (see `findEmbeddingModels`). Nothing is downloaded; tests
 * that need a model skip when none is found.
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { findEmbeddingModels, type LocalModel } from "../embeddings/find-embedding-models.js";
import { sharedDataPath } from "./shared-data.js";

export type { LocalModel };

/** The model directories searched, in order. */
export function modelRoots(): string[] {
  const roots = [sharedDataPath("models"), process.env.DOCQA_MODELS_DIR, join(repositoryRoot(), ".models")];
  return roots.filter((root): root is string => root !== undefined && existsSync(root));
}

/** Every embedding model found under the {@link modelRoots}, preferring `preferred` ids first. */
export function findLocalModels(preferred: readonly string[] = []): LocalModel[] {
  return findEmbeddingModels(modelRoots(), preferred);
}

/** The repository root: the nearest ancestor of the working directory with `package.json` and `packages/`. */
export function repositoryRoot(): string {
  let directory = resolve(process.cwd());
  for (;;) {
    if (existsSync(join(directory, "package.json")) && existsSync(join(directory, "packages"))) return directory;
    const parent = resolve(directory, "..");
    if (parent === directory) return process.cwd();
    directory = parent;
  }
}
