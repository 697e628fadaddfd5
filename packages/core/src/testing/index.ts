/**
 * Test doubles for docqa and for code built on it: `import { ... } from "@docqa/core/testing"`.
 */
export { DeterministicEmbeddings, type DeterministicEmbeddingsSettings } from "./deterministic-embeddings.js";
export { findLocalModels, type LocalModel, modelRoots } from "./local-models.js";
export { isContinuousIntegration, sharedDataDirectory, sharedDataPath } from "./shared-data.js";
