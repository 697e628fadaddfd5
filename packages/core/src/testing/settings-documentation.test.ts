import { describe, expect, it } from "vitest";
import { z } from "zod";
import { optionalString, setting } from "../config/setting-helpers.js";
import { loadStoreBackend } from "../stores/store-backend.js";
import { settingsDocumentationProblems } from "./settings-documentation.js";

const schema = z.object({
  url: setting("QDRANT_URL", optionalString()),
  nested: z.object({ collection: setting("QDRANT_COLLECTION", z.string().default("docs")) }),
});

describe("settingsDocumentationProblems", () => {
  it("names the settings without a row and the rows of no setting", () => {
    const readme = "| Variable | Default |\n|---|---|\n| `QDRANT_URL` | unset |\n| `QDRANT_API_KEY` | unset |\nProse `QDRANT_COLLECTION`.";
    expect(settingsDocumentationProblems(schema, readme)).toEqual({ missing: ["QDRANT_COLLECTION"], unknown: ["QDRANT_API_KEY"] });
  });

  it("finds a complete table complete (the search engine's rows of docs/configuration.md)", async () => {
    const { readFileSync } = await import("node:fs");
    const configuration = readFileSync(new URL("../../../../docs/configuration.md", import.meta.url), "utf8");
    const searchEngine = await loadStoreBackend("search-engine");
    expect(settingsDocumentationProblems(searchEngine.settings, configuration).missing).toEqual([]);
  });
});
