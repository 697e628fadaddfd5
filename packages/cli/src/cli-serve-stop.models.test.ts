/**
 * `docqa serve` stopped with SIGTERM (as on a rolling deploy) while an ingestion worker embeds
 * with a real model. Ending the process while onnxruntime-node runs aborts it (SIGABRT,
 * "terminate called after throwing an instance of 'Napi::Error'"), so the stop must close the
 * service, which stops the workers between model calls and waits for them, before exiting.
 * Needs the build, a model under ../shared/data/models and SciFact's corpus; part of
 * `npm run test:models`.
 */
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { setTimeout as sleep } from "node:timers/promises";
import { createEmbeddedStore } from "@docqa/core";
import { isContinuousIntegration, sharedDataPath } from "@docqa/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { built, realModel, runDocqaOk, startDocqaServe } from "./testing/run-docqa.js";

const corpus = sharedDataPath("ir", "scifact", "corpus.jsonl");
const available = built && realModel !== undefined && corpus !== undefined && existsSync(corpus);

/** Vectors in the service's embedding cache: embedding is under way once a slice is stored there. */
function cachedVectors(dataDir: string): number {
  const path = join(dataDir, "embedding-cache.sqlite");
  if (!existsSync(path)) return 0;
  const database = new DatabaseSync(path, { readOnly: true });
  try {
    return Number((database.prepare("SELECT count(*) AS count FROM embeddings").get() as { count: number }).count);
  } catch {
    return 0; // the table is not created yet
  } finally {
    database.close();
  }
}

describe.skipIf(!available && !isContinuousIntegration())(
  "docqa serve stopped during ingestion (needs the build, a model and SciFact)",
  () => {
    const children: { kill(signal: NodeJS.Signals): boolean }[] = [];
    afterEach(() => {
      for (const child of children.splice(0)) child.kill("SIGKILL");
    });

    it("SIGTERM while a large /upsert embeds: the upsert is refused with store_unavailable, nothing is written, and the process exits 0 (not SIGABRT)", async () => {
      const dataDir = mkdtempSync(join(tmpdir(), "docqa-serve-stop-"));
      const environment = { ...realModel?.environment, DATA_DIR: dataDir, JWT_SECRET: "stop-secret", RAG_LLM_PROVIDER: "extractive" };
      const served = await startDocqaServe(environment);
      children.push(served.process);
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        served.process.on("exit", (code, signal) => resolve({ code, signal })),
      );
      const bearer = (
        await runDocqaOk(["token", "--email", "ann@x.example", "--org", "org-1"], { JWT_SECRET: "stop-secret" })
      ).stdout.trim();
      // 3,000 SciFact abstracts: about a minute of embedding on 2 cores, far longer than the stop takes.
      const abstracts = readFileSync(corpus as string, "utf8")
        .split("\n")
        .filter(Boolean)
        .slice(0, 3000);
      const documents = Object.fromEntries(
        abstracts.map((line) => {
          const record = JSON.parse(line) as { _id: string; title: string; text: string };
          return [`scifact-${record._id}`, { title: record.title, content: record.text }];
        }),
      );
      const answered = fetch(`${served.url}/upsert`, {
        method: "POST",
        headers: { Authorization: `Bearer ${bearer}`, "Content-Type": "application/json" },
        body: JSON.stringify({ user_email: "ann@x.example", documents }),
      }).then(async (response) => ({ status: response.status, body: (await response.json()) as unknown }));
      while (cachedVectors(dataDir) === 0) await sleep(200);

      served.process.kill("SIGTERM");
      expect(await exited).toEqual({ code: 0, signal: null });
      expect(await answered).toEqual({
        status: 503,
        body: { detail: "the service is stopping: retry the ingestion", code: "store_unavailable" },
      });
      // Nothing was acknowledged and nothing was written: the upsert is retried as a whole.
      const store = createEmbeddedStore({ dataDir });
      expect(await store.count("org-1")).toBe(0);
      await store.close();
    });
  },
);
