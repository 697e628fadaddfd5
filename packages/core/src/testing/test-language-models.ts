/**
 * The real language models of the real-model tests (`npm run test:llm`): the GGUF files that
 * `npm run models:test-llm` provisions into `.models/`, and the `llama-server` that
 * `scripts/services/start-llama-server.sh` starts (its URL in `DOCQA_TEST_LLAMA_SERVER_URL`, exported
 * by `scripts/services/env.sh`). Nothing is downloaded here; tests skip with a message when a model
 * or the server is missing, and fail instead in continuous integration (`CI=true`).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { repositoryRoot } from "./local-models.js";

/** File names of the test models under `.models/`. */
export const testLanguageModelFiles = {
  /** Qwen2.5-Coder-1.5B-Instruct, Q4_K_M (1,117,320,768 bytes): the default test model. */
  "qwen2.5-coder-1.5b": "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
  /** Qwen2.5-Coder-0.5B-Instruct, Q4_K_M (491,400,064 bytes): the smallest, and the one that loops. */
  "qwen2.5-coder-0.5b": "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
} as const;

/** A test model's name. */
export type TestLanguageModel = keyof typeof testLanguageModelFiles;

/**
 * The path of a test model: `$DOCQA_TEST_LLM_DIR/<file>` when that variable is set, else
 * `<repository>/.models/<file>`; undefined when the file is absent.
 */
export function testLanguageModelPath(name: TestLanguageModel = "qwen2.5-coder-1.5b"): string | undefined {
  const directory = process.env.DOCQA_TEST_LLM_DIR ?? join(repositoryRoot(), ".models");
  const path = join(directory, testLanguageModelFiles[name]);
  return existsSync(path) ? path : undefined;
}

/** The base URL of the test `llama-server` (without `/v1`), or undefined when none was started. */
export function testLlamaServerUrl(): string | undefined {
  const url = process.env.DOCQA_TEST_LLAMA_SERVER_URL?.trim();
  return url ? url.replace(/\/+$/, "") : undefined;
}
