/**
 * kill -9 in the middle of large upserts: the store must open afterwards, pass SQLite's
 * integrity check, and hold every document wholly in one version (never a mix of chunks from
 * two versions, never a partial chunk set).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createEmbeddedStore } from "./embedded-store.js";

const packageRoot = fileURLToPath(new URL("../..", import.meta.url));
const writer = join(packageRoot, "test-fixtures", "crash-writer.mjs");
const built = existsSync(join(packageRoot, "dist", "index.js"));
const documentCount = 120;
const chunksPerDocument = 25;

async function runAndKill(dataDir: string, killAfterMs: number): Promise<number> {
  const child = spawn(process.execPath, [writer, dataDir, String(documentCount), String(chunksPerDocument)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let committed = 0;
  child.stdout.on("data", (data: Buffer) => {
    for (const match of data.toString().matchAll(/committed (\d+)/g)) committed = Number(match[1]);
  });
  await new Promise((resolve) => setTimeout(resolve, killAfterMs));
  child.kill("SIGKILL");
  await new Promise((resolve) => child.on("exit", resolve));
  return committed;
}

describe.skipIf(!built && process.env.CI !== "true")("embedded store crash safety (needs `npm run build`)", () => {
  it("keeps each document wholly old or wholly new after kill -9 during upserts", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "docqa-crash-"));
    const delays = [900, 1300, 1700, 2100, 2600];
    let versionsSeen = 0;
    for (const delay of delays) {
      const committed = await runAndKill(dataDir, delay);
      const store = createEmbeddedStore({ dataDir });
      expect([0, documentCount * chunksPerDocument]).toContain(await store.count("crash-org"));
      await store.close();

      const file = readdirSync(dataDir).find((name) => name.endsWith(".sqlite"));
      if (file === undefined) {
        // Killed before its first write created the file (reads create none).
        expect(committed).toBe(0);
        continue;
      }
      const database = new DatabaseSync(join(dataDir, file));
      expect(database.prepare("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
      const perDocument = database
        .prepare(
          "SELECT doc_id, COUNT(*) AS chunks, COUNT(DISTINCT content_hash) AS versions, MIN(content_hash) AS hash FROM chunks GROUP BY doc_id",
        )
        .all() as { doc_id: string; chunks: number; versions: number; hash: string }[];
      database.close();
      if (perDocument.length > 0) {
        expect(perDocument).toHaveLength(documentCount);
        for (const row of perDocument) {
          expect(row.versions).toBe(1);
          expect(row.chunks).toBe(chunksPerDocument);
        }
        const versions = new Set(perDocument.map((row) => row.hash.split("-v")[1]));
        expect(versions.size).toBe(1);
        const version = Number([...versions][0]);
        expect(version).toBeGreaterThanOrEqual(committed);
        versionsSeen = Math.max(versionsSeen, version);
      }
    }
    expect(versionsSeen).toBeGreaterThan(0);
  }, 120_000);
});
