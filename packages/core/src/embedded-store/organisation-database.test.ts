import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { silentLogger } from "../logging/logger.js";
import { createEnglishAnalyzer } from "../text/analyzer.js";
import { OrganisationDatabase } from "./organisation-database.js";

/**
 * Holds an exclusive lock on a new database file in another thread (as an ingestion worker
 * creating an organisation does) for `holdMs`; resolves once the lock is taken, and gives the
 * promise of the thread's end.
 */
async function holdLock(path: string, holdMs: number): Promise<{ released: Promise<void> }> {
  const worker = new Worker(
    `const { DatabaseSync } = require("node:sqlite");
     const { parentPort, workerData } = require("node:worker_threads");
     const database = new DatabaseSync(workerData.path);
     database.exec("BEGIN EXCLUSIVE; CREATE TABLE held (x)");
     parentPort.postMessage("locked");
     Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, workerData.holdMs);
     database.exec("COMMIT");
     database.close();`,
    { eval: true, workerData: { path, holdMs } },
  );
  await new Promise((resolve) => worker.once("message", resolve));
  return { released: new Promise((resolve) => worker.once("exit", () => resolve())) };
}

describe("organisation database", () => {
  it("waits for another connection creating the same file instead of calling it corrupt", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "docqa-database-")), "org.sqlite");
    const { released } = await holdLock(path, 300);
    // Opening blocks this thread until the other one commits (busy timeout 10 s), then succeeds.
    const database = new OrganisationDatabase({ path, orgId: "org-a", analyzer: createEnglishAnalyzer(), logger: silentLogger });
    expect(database.isOpen).toBe(true);
    expect([...database.select<{ name: string }>("SELECT name FROM sqlite_master WHERE name = $name", { name: "held" })]).toEqual([
      { name: "held" },
    ]);
    database.close();
    await released;
  });
});
