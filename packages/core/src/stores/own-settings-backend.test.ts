/**
 * A store backend whose settings are its own (registered with a `prefix`), as a new backend
 * package is: core reads none of its settings, keeps its variables for it, and its settings are
 * parsed, with errors naming the variables, when the backend is resolved at start-up. This file
 * is the backend's package too: it exports `storeBackend`, and registers itself before the
 * configuration modules load (they read the registry once).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { optionalString, setting } from "../config/setting-helpers.js";
import { DocqaError } from "../errors/docqa-error.js";
import type { StoreBackend } from "./store-backend.js";
import { type StoreBackendLocation, storeBackendPackages } from "./store-backend-packages.js";

const fakeSettings = z.object({
  /** `FAKESTORE_URL`: selects the backend; default none. */
  url: setting("FAKESTORE_URL", optionalString()),
  /** `FAKESTORE_COLLECTION`, default `docs`. */
  collection: setting(
    "FAKESTORE_COLLECTION",
    z
      .string()
      .regex(/^[a-z]+$/, "lower-case letters only")
      .default("docs"),
  ),
});

/** The settings each `create` call received. */
const created: z.output<typeof fakeSettings>[] = [];

// biome-ignore lint/suspicious/noExportsInTest: this file is also the backend package it registers (loaded by `loadStoreBackend`).
export const storeBackend: StoreBackend<z.output<typeof fakeSettings>> = {
  name: "fake",
  settings: fakeSettings,
  create(_config, _logger, settings) {
    created.push(settings);
    return { name: "fake" } as unknown as ReturnType<StoreBackend["create"]>;
  },
};

(storeBackendPackages as Record<string, StoreBackendLocation>).fake = {
  package: import.meta.url,
  variable: "FAKESTORE_URL",
  indexes: ["vector", "keyword"],
  prefix: "FAKESTORE_",
};
const { configSchema } = await import("../config/config-schema.js");
const { loadConfig, resolveConfig, settingsOf } = await import("../config/load-config.js");
const { storesFromConfig } = await import("./stores-from-config.js");
const { createRagService } = await import("../service/create-rag-service.js");
const { silentLogger } = await import("../logging/logger.js");

async function errorOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe("a store backend whose settings are its own", () => {
  it("is selected by its variable with VECTOR_STORE and KEYWORD_STORE auto, and by its name", () => {
    const config = loadConfig({ FAKESTORE_URL: "http://fake:1", FAKESTORE_COLLECTION: "kb", PATH: "/bin" });
    expect([config.stores.vector, config.stores.keyword]).toEqual(["fake", "fake"]);
    expect(config.stores.backendVariables).toEqual({ fake: { FAKESTORE_URL: "http://fake:1", FAKESTORE_COLLECTION: "kb" } });
    expect(loadConfig({ VECTOR_STORE: "fake", KEYWORD_STORE: "fake" }).stores).toMatchObject({ vector: "fake", keyword: "fake" });
  });

  it("adds none of its settings to core's configuration or its checks", () => {
    expect(settingsOf(configSchema).filter((location) => location.env.startsWith("FAKESTORE_"))).toEqual([]);
    expect(loadConfig({ FAKESTORE_URL: "http://fake:1", FAKESTORE_COLLECTION: "Not Valid" }).stores.vector).toBe("fake");
  });

  it("gets its settings, parsed with its schema, when the stores are created; settings in code win", async () => {
    created.length = 0;
    await storesFromConfig(loadConfig({ FAKESTORE_URL: "http://fake:1" }), silentLogger);
    await storesFromConfig(
      resolveConfig(
        { stores: { backends: { fake: { collection: "code" } } } },
        loadConfig({ FAKESTORE_URL: "http://fake:2", FAKESTORE_COLLECTION: "env" }),
      ),
      silentLogger,
    );
    expect(created).toEqual([
      { url: "http://fake:1", collection: "docs" },
      { url: "http://fake:2", collection: "code" },
    ]);
  });

  it("refuses invalid settings at start-up, naming the variable, before the service serves", async () => {
    const config = loadConfig({ FAKESTORE_URL: "http://fake:1", FAKESTORE_COLLECTION: "Not Valid", LOG_LEVEL: "silent" });
    const error = await errorOf(storesFromConfig(config, silentLogger));
    expect(DocqaError.isInstance(error) && error.code).toBe("config_invalid");
    expect((error as DocqaError).message).toBe(
      '[docqa] [config] invalid configuration: FAKESTORE_COLLECTION="Not Valid": lower-case letters only',
    );
    const inCode = resolveConfig({ stores: { vector: "fake", keyword: "fake", backends: { fake: { collection: "In Code" } } } });
    expect(((await errorOf(storesFromConfig(inCode, silentLogger))) as DocqaError).message).toContain(
      "collection: lower-case letters only",
    );
    const service = createRagService({ config, embeddings: null });
    expect(((await errorOf(service.ready())) as DocqaError).message).toContain('FAKESTORE_COLLECTION="Not Valid"');
    await service.close();
  });
});
