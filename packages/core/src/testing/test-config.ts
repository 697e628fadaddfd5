/**
 * The configuration of test services and runtimes: a new temporary data directory, 64-dimension
 * embeddings (the deterministic embedder's), no RAPTOR, silent logs, the extractive answerer.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DocqaConfig } from "../config/config-schema.js";
import { type DocqaConfigOverrides, resolveConfig } from "../config/load-config.js";

/**
 * The test configuration with `overrides` applied.
 *
 * @param prefix - name prefix of the temporary directory, created unless `overrides` name a `dataDir`.
 * @returns the configuration, and the temporary directory to remove afterwards (undefined when none was created).
 */
export function testConfig(
  overrides: DocqaConfigOverrides | undefined,
  prefix: string,
): { config: DocqaConfig; temporary: string | undefined } {
  const temporary = overrides?.stores?.dataDir ? undefined : mkdtempSync(join(tmpdir(), prefix));
  const config = resolveConfig(overrides, {
    stores: { dataDir: temporary },
    embeddings: { dimension: 64 },
    ingestion: { useRaptor: false },
    logging: { level: "silent" },
    models: { provider: "extractive" },
  });
  return { config, temporary };
}
