import { readFileSync } from "node:fs";
import { configSchema, settingsOf } from "@docqa/core";
import { loadStoreBackend, storeBackendPackages } from "@docqa/core/stores";
import { describe, expect, it } from "vitest";
import { serverConfigSchema } from "./server-config.js";

const documentation = readFileSync(new URL("../../../docs/configuration.md", import.meta.url), "utf8");

describe("docs/configuration.md", () => {
  it("documents every environment variable of the service, of the servers and of the store backends", async () => {
    const backends = await Promise.all(Object.keys(storeBackendPackages).map(loadStoreBackend));
    const variables = [configSchema, serverConfigSchema, ...backends.map((backend) => backend.settings)]
      .flatMap((schema) => settingsOf(schema))
      .map((location) => location.env);
    const documented = new Set([...documentation.matchAll(/^\|\s*`([A-Z0-9_]+)`\s*\|/gm)].map((match) => match[1] as string));
    const missing = variables.filter((name) => !documented.has(name));
    const unknown = [...documented].filter((name) => !variables.includes(name));
    expect({ missing, unknown }).toEqual({ missing: [], unknown: [] });
  });
});
