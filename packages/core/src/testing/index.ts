/**
 * Test doubles for docqa and for code built on it: `import { ... } from "@docqa/core/testing"`.
 */

/** Mulberry32, the seeded PRNG of the core's own tests and clustering, for reproducible benchmarks and scripts. */
export { mulberry32 } from "../raptor/cluster-vectors.js";
export { createTestRuntime, type TestRuntime, type TestRuntimeOptions } from "./create-test-runtime.js";
export { createTestService, type TestServiceOptions } from "./create-test-service.js";
export { DeterministicEmbeddings, type DeterministicEmbeddingsSettings } from "./deterministic-embeddings.js";
export { docqaErrorOf } from "./docqa-error-of.js";
export {
  type CraftedEntry,
  craftZip,
  honestHugeDocumentEntries,
  mainPartBombEntries,
  paragraphBlock,
  type WordDocumentOptions,
  wordDocumentEntries,
  wordDocumentHead,
  wordDocumentTail,
  wordParagraph,
  writeCraftedZip,
  zipChunks,
} from "./hostile-archives.js";
export {
  type IntegrationServer,
  type IntegrationServerKind,
  integrationServer,
  integrationServerVariables,
  testName,
  testRunId,
} from "./integration-server.js";
export { isTcpReachable } from "./is-tcp-reachable.js";
export { findLocalModels, type LocalModel, modelRoots } from "./local-models.js";
export {
  type OllamaChatScript,
  type OllamaEmbedScript,
  type OllamaWireServer,
  type OllamaWireServerSettings,
  startOllamaWireServer,
} from "./ollama-wire-server.js";
export {
  deterministicVector,
  type OpenAIChatScript,
  type OpenAIEmbeddingsScript,
  type OpenAIWireServer,
  type OpenAIWireServerSettings,
  startOpenAIWireServer,
  type WireRequest,
  type WireTiming,
} from "./openai-wire-server.js";
export { createRecordingLogger, type RecordedLine } from "./recording-logger.js";
export { documentedVariables, settingsDocumentationProblems } from "./settings-documentation.js";
export { isContinuousIntegration, sharedDataDirectory, sharedDataPath } from "./shared-data.js";
export { type SharedDocumentInputOptions, sharedDocumentInputs } from "./shared-document-inputs.js";
export { type FaultMode, startTcpFaultProxy, type TcpFaultProxy } from "./tcp-fault-proxy.js";
export {
  type TestLanguageModel,
  testLanguageModelFiles,
  testLanguageModelPath,
  testLlamaServerUrl,
} from "./test-language-models.js";
export { textChunk } from "./text-chunk.js";
