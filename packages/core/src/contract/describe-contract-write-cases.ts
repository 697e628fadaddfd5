/**
 * Contract cases of writes: the embedding model check, a write failing half-way, the sweeper of
 * uncommitted versions, and a 10,000-chunk batch. Registered by `describeDocumentStoresContract`.
 */
import { expect, it } from "vitest";
import { DocqaError } from "../errors/docqa-error.js";
import { silentLogger } from "../logging/logger.js";
import type { DocumentVersion } from "../stores/chunk-record.js";
import { stagedDocumentStores } from "../stores/document-stores.js";
import { createUncommittedSweeper, type SweepReport } from "../stores/sweep-uncommitted.js";
import { isSweepable, type SweepableIndex } from "../stores/sweepable-index.js";
import {
  type ContractContext,
  contractDocument,
  contractEmbeddingModel,
  docIdsOf,
  reader,
  searchBoth,
} from "./document-stores-contract-fixtures.js";

/** Registers the write cases of the document stores contract in the current `describe`. */
export function describeWriteCases(context: ContractContext): void {
  const { timeout, options, organisation, write } = context;
  it.skipIf(options.vector === false)(
    "refuses vectors of a different embedding model",
    async () => {
      if (!context.subject.stores.vector) throw new Error("the stores have no vector index; pass { vector: false }");
      const orgId = organisation("model");
      await write(orgId, [await contractDocument("first", ["first alpha"])]);
      const other = await contractDocument("second", ["second omega"]);
      for (const chunk of other.chunks) chunk.embedding = new Float32Array(32).fill(0.1);
      const error = await context.subject.stores
        .write(orgId, [other], { embeddingModel: { id: "other-model", dimension: 32 } })
        .catch((caught: unknown) => caught);
      expect(DocqaError.isInstance(error) && error.code).toBe("embedding_model_mismatch");
      const search = context.subject.stores.vector.searchByVector(
        orgId,
        new Float32Array(32),
        { id: "other-model", dimension: 32 },
        {
          topK: 1,
          filter: { principal: reader },
        },
      );
      await expect(search).rejects.toMatchObject({ code: "embedding_model_mismatch" });
      expect(docIdsOf((await searchBoth(context.subject.stores, orgId, "second omega", 5, { principal: reader })).keyword)).toEqual([]);
    },
    timeout,
  );

  it(
    "leaves nothing visible when a store fails half-way through a write, and keeps the old version",
    async () => {
      const parts = context.subject.stagedParts;
      if (!parts) return; // transactional stores are covered by their crash tests
      const orgId = organisation("failure");
      await write(orgId, [await contractDocument("doc", ["original text about apples", "more about apples"])]);
      const keyword = parts.keyword;
      const failingKeyword = new Proxy(keyword, {
        get(target, property) {
          if (property === "write")
            return async () => {
              throw new DocqaError("store_unavailable", "injected failure", { component: "contract" });
            };
          const value = Reflect.get(target, property, target) as unknown;
          return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
        },
      });
      const failing = stagedDocumentStores({ ...parts, keyword: failingKeyword });
      const attempt = failing.write(orgId, [await contractDocument("doc", ["replacement text about pears"], { version: "v2" })], {
        embeddingModel: contractEmbeddingModel,
      });
      await expect(attempt).rejects.toMatchObject({ code: "store_unavailable" });
      const apples = await searchBoth(context.subject.stores, orgId, "apples", 10, { principal: reader });
      expect(apples.keyword.map((result) => result.chunk.contentHash)).toEqual(["doc:v1", "doc:v1"]);
      const pears = await searchBoth(context.subject.stores, orgId, "replacement pears", 10, { principal: reader });
      expect(pears.keyword).toEqual([]);
      expect((pears.vector ?? []).every((result) => result.chunk.contentHash === "doc:v1")).toBe(true);
      expect((await context.subject.stores.registry.contentHashes(orgId, ["doc"])).get("doc")).toBe("doc:v1");
    },
    timeout,
  );

  it(
    "sweeps a version an interrupted write left uncommitted after the grace period, and nothing else",
    async () => {
      const parts = context.subject.stagedParts;
      if (!parts) return; // a transactional store leaves nothing uncommitted
      const indexes = [...new Set([parts.vector, parts.keyword])].filter((index) => index !== undefined);
      expect(indexes.every(isSweepable)).toBe(true);
      const orgId = organisation("sweep");
      const stamped = { metadata: { org_id: orgId } };
      await write(orgId, [
        await contractDocument("kept", ["committed text about harbours", "more about harbours"], stamped),
        await contractDocument("other", ["another committed text about lighthouses"], stamped),
      ]);
      // A crash between the staged protocol's write and commit: v2 is stored, never committed.
      const interrupted = await contractDocument("kept", ["interrupted text about pears", "more pears", "even more pears"], {
        ...stamped,
        version: "v2",
      });
      for (const index of indexes) await index.write(orgId, [interrupted], { embeddingModel: contractEmbeddingModel });
      expect(await parts.keyword.count(orgId)).toBe(6);

      let clock = 1_000_000;
      const reports: SweepReport[] = [];
      const sweeper = createUncommittedSweeper({
        indexes: indexes.filter((index): index is typeof index & SweepableIndex => isSweepable(index)),
        registry: parts.registry,
        graceMs: 60_000,
        logger: silentLogger,
        now: () => clock,
        onSweep: (report) => reports.push(report),
      });
      const early = await sweeper.sweep();
      expect(early.errors).toEqual([]);
      expect(early.versionsRemoved).toBe(0);
      expect(early.pending).toBe(indexes.length);
      expect(await parts.keyword.count(orgId)).toBe(6);

      clock += 60_000;
      const late = await sweeper.sweep();
      expect(late.errors).toEqual([]);
      expect(late.removed.filter((entry) => entry.orgId === orgId)).toEqual(
        indexes.map((index) => ({ index: index.name, orgId, versions: 1, chunks: 3 })),
      );
      expect(reports).toHaveLength(2);
      expect(await parts.keyword.count(orgId)).toBe(3);
      if (parts.vector) expect(await parts.vector.count(orgId)).toBe(3);
      const harbours = await searchBoth(context.subject.stores, orgId, "harbours", 10, { principal: reader });
      expect(harbours.keyword.map((result) => result.chunk.contentHash)).toEqual(["kept:v1", "kept:v1"]);
      expect(await (indexes[0] as unknown as SweepableIndex).storedVersions(orgId)).toEqual(
        expect.arrayContaining([
          { docId: "kept", contentHash: "kept:v1", chunks: 2 },
          { docId: "other", contentHash: "other:v1", chunks: 1 },
        ]),
      );
    },
    timeout,
  );

  it.skipIf(options.largeBatch === false)(
    "writes a batch of 10,000 chunks in one call",
    async () => {
      const orgId = organisation("batch");
      const documents: DocumentVersion[] = [];
      for (let document = 0; document < 100; document++) {
        const texts = Array.from(
          { length: 100 },
          (_, index) => `batch document ${document} chunk ${index} term${(document * 100 + index) % 997}`,
        );
        documents.push(await contractDocument(`batch-${document}`, texts));
      }
      await write(orgId, documents);
      expect(await context.subject.stores.keyword.count(orgId)).toBe(10_000);
      if (context.subject.stores.vector) expect(await context.subject.stores.vector.count(orgId)).toBe(10_000);
      const { keyword } = await searchBoth(context.subject.stores, orgId, "term123", 20, { principal: reader });
      expect(keyword.length).toBeGreaterThan(0);
      expect(keyword.every((result) => result.chunk.text.endsWith("term123"))).toBe(true);
    },
    timeout * 5,
  );
}
