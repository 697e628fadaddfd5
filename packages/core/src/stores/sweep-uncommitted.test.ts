import { describe, expect, it } from "vitest";
import { DocqaError } from "../errors/docqa-error.js";
import { type Logger, silentLogger } from "../logging/logger.js";
import type { DocumentRegistry } from "./document-registry.js";
import { createUncommittedSweeper } from "./sweep-uncommitted.js";
import type { StoredVersion, SweepableIndex } from "./sweepable-index.js";

/** An index double holding versions per organisation, recording removals. */
function fakeIndex(name: string, stored: Record<string, StoredVersion[]>) {
  const removed: string[] = [];
  const index: SweepableIndex = {
    name,
    organisations: async () => Object.keys(stored),
    storedVersions: async (orgId) => {
      if (orgId === "broken") throw new DocqaError("store_unavailable", "cannot list", { component: name });
      return stored[orgId] ?? [];
    },
    removeVersions: async (orgId, versions) => {
      for (const version of versions) {
        removed.push(`${orgId}/${version.docId}@${version.contentHash}`);
        stored[orgId] = (stored[orgId] ?? []).filter(
          (entry) => !(entry.docId === version.docId && entry.contentHash === version.contentHash),
        );
      }
    },
  };
  return { index, removed };
}

/** A registry double whose committed versions the test changes. */
function fakeRegistry(committed: Record<string, Record<string, string>>, onRead?: () => void): DocumentRegistry {
  return {
    name: "registry",
    contentHashes: async (orgId, docIds) => {
      onRead?.();
      const hashes = new Map<string, string>();
      for (const docId of docIds) {
        const hash = committed[orgId]?.[docId];
        if (hash) hashes.set(docId, hash);
      }
      return hashes;
    },
    derivedDocuments: async () => [],
    describeDocuments: async () => new Map(),
    listDocuments: async () => ({ documents: [], next: null }),
  };
}

describe("createUncommittedSweeper", () => {
  it("removes a version only after it stayed uncommitted for the grace period, and reports it", async () => {
    const { index, removed } = fakeIndex("milvus", {
      a: [
        { docId: "doc", contentHash: "v1", chunks: 2 },
        { docId: "doc", contentHash: "v2", chunks: 5 },
        { docId: "orphan", contentHash: "x", chunks: 1 },
      ],
    });
    let clock = 0;
    const infos: Record<string, unknown>[] = [];
    const logger: Logger = { ...silentLogger, info: (_message, fields) => infos.push(fields ?? {}) };
    const sweeper = createUncommittedSweeper({
      indexes: [index],
      registry: fakeRegistry({ a: { doc: "v1" } }),
      graceMs: 1000,
      logger,
      now: () => clock,
    });
    const first = await sweeper.sweep();
    expect(first).toMatchObject({ organisations: 1, versionsRemoved: 0, chunksRemoved: 0, pending: 2, errors: [] });
    clock = 999;
    expect((await sweeper.sweep()).versionsRemoved).toBe(0);
    clock = 1000;
    const due = await sweeper.sweep();
    expect(due).toMatchObject({ versionsRemoved: 2, chunksRemoved: 6, pending: 0 });
    expect(due.removed).toEqual([{ index: "milvus", orgId: "a", versions: 2, chunks: 6 }]);
    expect(removed).toEqual(["a/doc@v2", "a/orphan@x"]);
    expect(infos).toEqual([expect.objectContaining({ component: "sweeper", versions_removed: 2, chunks_removed: 6, organisations: 1 })]);
  });

  it("keeps a version committed between listing and removal", async () => {
    const { index, removed } = fakeIndex("opensearch", { a: [{ docId: "doc", contentHash: "v2", chunks: 3 }] });
    const committed: Record<string, Record<string, string>> = { a: { doc: "v1" } };
    let reads = 0;
    const sweeper = createUncommittedSweeper({
      indexes: [index],
      // The slow write commits v2 right after the sweeper listed the versions.
      registry: fakeRegistry(committed, () => {
        reads++;
        if (reads === 2) committed.a = { doc: "v2" };
      }),
      graceMs: 0,
      logger: silentLogger,
    });
    const report = await sweeper.sweep();
    expect(report.versionsRemoved).toBe(0);
    expect(removed).toEqual([]);
  });

  it("restarts the grace period of a version that was committed and later left behind", async () => {
    const stored = { a: [{ docId: "doc", contentHash: "v2", chunks: 1 }] };
    const { index, removed } = fakeIndex("milvus", stored);
    const committed: Record<string, Record<string, string>> = { a: { doc: "v1" } };
    let clock = 0;
    const sweeper = createUncommittedSweeper({
      indexes: [index],
      registry: fakeRegistry(committed),
      graceMs: 100,
      logger: silentLogger,
      now: () => clock,
    });
    await sweeper.sweep(); // v2 first seen at 0 (a write in progress)
    committed.a = { doc: "v2" };
    clock = 50;
    await sweeper.sweep(); // committed: forgotten
    committed.a = { doc: "v3" };
    clock = 120;
    expect((await sweeper.sweep()).versionsRemoved).toBe(0); // first seen again at 120
    clock = 220;
    expect((await sweeper.sweep()).versionsRemoved).toBe(1);
    expect(removed).toEqual(["a/doc@v2"]);
  });

  it("goes on past an organisation that fails, reports it, and survives a hook that throws", async () => {
    const { index } = fakeIndex("milvus", { broken: [], b: [{ docId: "doc", contentHash: "x", chunks: 4 }] });
    const warnings: string[] = [];
    const sweeper = createUncommittedSweeper({
      indexes: [index],
      registry: fakeRegistry({}),
      graceMs: 0,
      logger: { ...silentLogger, warn: (message) => warnings.push(message) },
      onSweep: () => {
        throw new Error("metrics down");
      },
    });
    const report = await sweeper.sweep();
    expect(report.errors).toEqual([{ index: "milvus", orgId: "broken", error: "cannot list" }]);
    expect(report.removed).toEqual([{ index: "milvus", orgId: "b", versions: 1, chunks: 4 }]);
    expect(warnings).toEqual(["sweeping uncommitted chunk versions failed; retried on the next pass", "the sweep hook failed"]);
  });

  it("runs one pass at a time: a second call joins the running one", async () => {
    let lists = 0;
    const index: SweepableIndex = {
      name: "milvus",
      organisations: async () => {
        lists++;
        await new Promise((resolve) => setTimeout(resolve, 20));
        return [];
      },
      storedVersions: async () => [],
      removeVersions: async () => {},
    };
    const sweeper = createUncommittedSweeper({ indexes: [index], registry: fakeRegistry({}), graceMs: 0, logger: silentLogger });
    const [first, second] = await Promise.all([sweeper.sweep(), sweeper.sweep()]);
    expect(first).toBe(second);
    expect(lists).toBe(1);
  });
});
