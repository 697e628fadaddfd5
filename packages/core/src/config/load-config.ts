/**
 * Reads configuration from the environment, in one place. See `docs/configuration.md`.
 */
import { DocqaError } from "../errors/docqa-error.js";
import { configFromEnvironment, type DocqaConfig } from "./docqa-config.js";
import { environmentSchema } from "./environment-schema.js";

/** A map of environment variables, such as `process.env`. */
export type EnvironmentVariables = Record<string, string | undefined>;

/**
 * Parses and validates every docqa environment variable, applying defaults.
 *
 * Empty strings count as unset. Unknown variables are ignored.
 *
 * @param environment - variables to read; default `process.env`.
 * @returns the resolved configuration.
 * @throws {DocqaError} `config_invalid` naming each offending variable, its value's problem,
 *   and the expected form, for example `CHUNK_SIZE: expected a number, received "big"`; also for
 *   inconsistent settings (`CHUNK_OVERLAP` not below `CHUNK_SIZE`, an embedded store mixed with
 *   a server, both fusion weights 0, `EMBED_PROVIDER=openai` or `ollama` without `EMBED_MODEL_NAME`).
 * @example
 * ```ts
 * const config = loadConfig({ ...process.env, DATA_DIR: "/var/lib/docqa" });
 * ```
 */
export function loadConfig(environment: EnvironmentVariables = process.env): DocqaConfig {
  const present: Record<string, string> = {};
  for (const name of Object.keys(environmentSchema.shape)) {
    const value = environment[name];
    if (value !== undefined && value.trim() !== "") present[name] = value.trim();
  }
  const parsed = environmentSchema.safeParse(present);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const variable = String(issue.path[0] ?? "?");
      return `${variable}=${JSON.stringify(present[variable] ?? "")}: ${issue.message}`;
    });
    throw new DocqaError("config_invalid", `invalid configuration: ${problems.join("; ")}`, {
      component: "config",
      cause: parsed.error,
      details: problems,
    });
  }
  const config = configFromEnvironment(parsed.data);
  if ((config.embedProvider === "openai" || config.embedProvider === "ollama") && present.EMBED_MODEL_NAME === undefined) {
    throw new DocqaError("config_invalid", providerEmbeddingModelMessage(config.embedProvider), { component: "config" });
  }
  if (config.chunkOverlap >= config.chunkSize) {
    throw new DocqaError(
      "config_invalid",
      `invalid configuration: CHUNK_OVERLAP (${config.chunkOverlap}) must be smaller than CHUNK_SIZE (${config.chunkSize})`,
      { component: "config" },
    );
  }
  const embeddedStores = [config.vectorStore === "embedded", config.keywordStore === "embedded"];
  if (embeddedStores[0] !== embeddedStores[1] && config.vectorStore !== "none") {
    throw new DocqaError(
      "config_invalid",
      `invalid configuration: the embedded store holds both indexes, so it cannot be combined with a server (vector store ${config.vectorStore}, keyword store ${config.keywordStore}): set both VECTORDB_URI and FULLTEXT_URI, or VECTORDB_URI alone (Milvus for both), or neither; for BM25 only on a full-text server set VECTOR_STORE=none`,
      { component: "config" },
    );
  }
  if (config.vectorStore === "none" && config.keywordStore === "embedded") {
    throw new DocqaError(
      "config_invalid",
      "invalid configuration: VECTOR_STORE=none needs a server keyword store (FULLTEXT_URI or VECTORDB_URI); for BM25 only with the embedded store set EMBED_PROVIDER=none",
      { component: "config" },
    );
  }
  if (config.weightVector + config.weightBm25 === 0) {
    throw new DocqaError("config_invalid", "invalid configuration: WEIGHT_VECTOR and WEIGHT_BM25 are both 0", {
      component: "config",
    });
  }
  return config;
}

/** The error message when `EMBED_PROVIDER` names a provider but `EMBED_MODEL_NAME` is unset. */
function providerEmbeddingModelMessage(provider: "openai" | "ollama"): string {
  const example = provider === "openai" ? "text-embedding-3-small" : "nomic-embed-text";
  return `invalid configuration: EMBED_PROVIDER=${provider} needs EMBED_MODEL_NAME set to a model the provider serves (for example ${example}); the default Xenova/bge-base-en-v1.5 is a transformers.js model`;
}

/**
 * The default configuration (an empty environment) with `overrides` applied, for library users
 * who configure in code rather than through variables. Nested `cache` and `jwt` are merged.
 *
 * @throws {DocqaError} `config_invalid` when `embedProvider` is `openai` or `ollama` without an
 *   `embedModelName`.
 */
export function resolveConfig(overrides: DocqaConfigOverrides = {}): DocqaConfig {
  if ((overrides.embedProvider === "openai" || overrides.embedProvider === "ollama") && !overrides.embedModelName) {
    throw new DocqaError("config_invalid", providerEmbeddingModelMessage(overrides.embedProvider), { component: "config" });
  }
  const defaults = loadConfig({});
  return {
    ...defaults,
    ...overrides,
    cache: { ...defaults.cache, ...overrides.cache },
    jwt: { ...defaults.jwt, ...overrides.jwt },
  };
}

/** Partial configuration accepted by {@link resolveConfig} and `createRagService`. */
export type DocqaConfigOverrides = Partial<Omit<DocqaConfig, "cache" | "jwt">> & {
  cache?: Partial<DocqaConfig["cache"]>;
  jwt?: Partial<DocqaConfig["jwt"]>;
};
