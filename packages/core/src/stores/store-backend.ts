/**
 * Server store backends by name, as unstorage's drivers: a backend package exports a
 * {@link StoreBackend} named `storeBackend` (its name, the settings it reads, its factory), and
 * `storesFromConfig` looks it up by the name `VECTOR_STORE` / `KEYWORD_STORE` resolve to. Core
 * knows only where each name's package is (`storeBackendPackages`, `store-backend-packages.ts`) and loads it on demand,
 * so that `@docqa/core` does not depend on the backends' clients.
 */
import type { z } from "zod";
import type { DocqaConfig } from "../config/config-schema.js";
import { loadSettings } from "../config/load-config.js";
import { DocqaError } from "../errors/docqa-error.js";
import type { Logger } from "../logging/logger.js";
import { storeBackendPackages } from "./store-backend-packages.js";

export { type StoreBackendLocation, storeBackendPackages } from "./store-backend-packages.js";

import type { KeywordIndex, StagedIndex, StagedRegistry, VectorIndex } from "./vector-index.js";

/** A Milvus store: vector index, BM25 keyword index and registry (what `@docqa/milvus` creates). */
export type ServerVectorStore = VectorIndex & KeywordIndex & StagedIndex & StagedRegistry;
/** A search-engine index: BM25 keyword index and registry (what `@docqa/elasticsearch` creates). */
export type ServerKeywordStore = KeywordIndex & StagedIndex & StagedRegistry;

/**
 * A server store backend: what a backend package exports as `storeBackend`.
 *
 * @example
 * ```ts
 * // @docqa/qdrant, registered with `qdrant: { package: "@docqa/qdrant", variable: "QDRANT_URL", indexes: ["vector"], prefix: "QDRANT_" }`
 * const qdrantSettings = z.object({
 *   // `QDRANT_URL`: the server's address; default `http://localhost:6333` (used only when Qdrant is selected).
 *   url: setting("QDRANT_URL", z.url().optional()),
 * });
 * export const storeBackend: StoreBackend<z.output<typeof qdrantSettings>> = {
 *   name: "qdrant",
 *   settings: qdrantSettings,
 *   create: (config, logger, settings) => createQdrantStore({ url: settings.url ?? "http://localhost:6333", logger }),
 * };
 * ```
 */
export interface StoreBackend<Settings = unknown> {
  /**
   * The name it is registered by in `storeBackendPackages`. `config.stores.vector` and
   * `config.stores.keyword` hold that name or one of its aliases (the name the user chose).
   */
  name: string;
  /**
   * The settings the backend reads, marked with `setting()` (their variables: `settingsOf(settings)`,
   * their TSDoc the documentation of each), every variable starting with the backend's registered
   * `prefix`. The backend owns them: they are parsed when the backend is resolved
   * (`storeBackendSettings`), not by core's `configSchema`.
   */
  settings: z.ZodType<Settings>;
  /**
   * Creates the backend's store for `config`: a keyword index and registry, and a vector index
   * when the backend holds vectors. Connects lazily: never fails because the server is down.
   *
   * @param settings - the backend's settings, parsed by {@link StoreBackend.settings} (`storeBackendSettings`).
   * @throws {DocqaError} `config_invalid` for settings the server would refuse.
   */
  create(config: DocqaConfig, logger: Logger, settings: Settings): ServerKeywordStore & Partial<VectorIndex>;
}

/**
 * The settings of the backend `backend` (registered as `name`) in `config`, parsed with its
 * schema from its variables (`config.stores.backendVariables[name]`) and the settings given in
 * code (`config.stores.backends[name]`), which win.
 *
 * @throws {DocqaError} `config_invalid` naming each offending variable and its problem, for
 *   example `QDRANT_URL="qdrant": Invalid URL`; `storesFromConfig` runs this when a service
 *   starts (`service.ready()`), before it serves.
 */
export function storeBackendSettings<Settings>(name: string, backend: StoreBackend<Settings>, config: DocqaConfig): Settings {
  return loadSettings(backend.settings, config.stores.backendVariables[name] ?? {}, config.stores.backends[name] ?? {});
}

/** What a backend package exports. */
export interface StoreBackendPackage {
  storeBackend: StoreBackend;
}

/**
 * Loads the backend named `name` from its package.
 *
 * @throws {DocqaError} `config_invalid` when no backend has that name, or its package is not installed.
 */
export async function loadStoreBackend(name: string): Promise<StoreBackend> {
  const location = storeBackendPackages[name];
  if (!location)
    throw new DocqaError("config_invalid", `no store backend named ${name} (known: ${Object.keys(storeBackendPackages).join(", ")})`, {
      component: "config",
    });
  return (await importBackend<StoreBackendPackage>(location.package, location.variable)).storeBackend;
}

/**
 * Imports a backend package by name.
 *
 * @throws {DocqaError} `config_invalid` naming the package to install and the variable that
 *   selected it.
 */
export async function importBackend<T>(name: string, variable: string): Promise<T> {
  try {
    return (await import(/* @vite-ignore */ name)) as T;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") {
      throw new DocqaError("config_invalid", `${variable} selects a backend in ${name}, which is not installed: npm install ${name}`, {
        component: "config",
        cause: error,
      });
    }
    throw error;
  }
}
