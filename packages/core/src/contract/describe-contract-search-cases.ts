/**
 * Contract cases of searching: BM25 and vector results with sorted, normalisable scores, replacing
 * and deleting documents, organisation isolation, empty organisations, unicode text, and the health
 * check. Registered by `describeDocumentStoresContract`.
 */
import { randomUUID } from "node:crypto";
import { expect, it } from "vitest";
import { normalizeScores } from "../retrieval/normalize-scores.js";
import { type ChunkRecord, chunkId } from "../stores/chunk-record.js";
import { type ContractContext, contractDocument, docIdsOf, reader, searchBoth } from "./document-stores-contract-fixtures.js";

/** Registers the search cases of the document stores contract in the current `describe`. */
export function describeSearchCases(context: ContractContext): void {
  const { timeout, organisation, write } = context;
  it(
    "answers a health check on every part while the backends are up, before any organisation exists",
    async () => {
      const parts = [context.subject.stores.vector, context.subject.stores.keyword].filter((part) => part !== undefined);
      for (const part of parts) await expect(part.ping()).resolves.toBeUndefined();
    },
    timeout,
  );

  it(
    "finds written chunks by BM25 and by vector, with sorted, finite, normalisable scores",
    async () => {
      const orgId = organisation();
      await write(orgId, [
        await contractDocument("cats", ["Cats purr and sleep in the sun all day long."]),
        await contractDocument("dogs", ["Dogs bark loudly at the postman every morning."]),
        await contractDocument("birds", ["Birds sing at dawn; some dogs chase the birds."]),
      ]);
      const { keyword, vector } = await searchBoth(context.subject.stores, orgId, "barking dogs", 10, { principal: reader });
      expect(keyword[0]?.chunk.docId).toBe("dogs");
      expect(docIdsOf(keyword)).toEqual(["birds", "dogs"]);
      for (const results of [keyword, vector ?? []]) {
        const scores = results.map((result) => result.score);
        expect(scores.every(Number.isFinite)).toBe(true);
        expect([...scores].sort((left, right) => right - left)).toEqual(scores);
        for (const normalized of normalizeScores(scores, "min-max")) expect(normalized).toBeGreaterThanOrEqual(0);
      }
      expect(keyword.every((result) => result.score >= 0)).toBe(true);
      if (vector) {
        expect(vector[0]?.chunk.docId).toBe("dogs");
        expect(vector.every((result) => result.score >= -1.0001 && result.score <= 1.0001)).toBe(true);
      }
      const stored = keyword[0]?.chunk as ChunkRecord;
      expect(stored).toMatchObject({
        id: chunkId("dogs", 0),
        docId: "dogs",
        chunkIndex: 0,
        text: "Dogs bark loudly at the postman every morning.",
        title: "Title of dogs",
        source: "contract",
        ownerId: "owner@example.org",
        acl: "|user:_all_|",
        contentHash: "dogs:v1",
      });
      expect(stored.metadata).toMatchObject({ doc_id: "dogs", chunk_index: 0, type: "txt" });
      expect(await context.subject.stores.registry.contentHashes(orgId, ["cats", "dogs", "missing"])).toEqual(
        new Map([
          ["cats", "cats:v1"],
          ["dogs", "dogs:v1"],
        ]),
      );
    },
    timeout,
  );

  it(
    "replaces every chunk of a document, and deletes documents",
    async () => {
      const orgId = organisation();
      await write(orgId, [
        await contractDocument("doc", ["alpha one", "alpha two", "alpha three"]),
        await contractDocument("other", ["alpha other"]),
      ]);
      await write(orgId, [await contractDocument("doc", ["beta only"], { version: "v2" })]);
      const alpha = await searchBoth(context.subject.stores, orgId, "alpha", 10, { principal: reader });
      expect(docIdsOf(alpha.keyword)).toEqual(["other"]);
      expect(docIdsOf(alpha.vector?.filter((result) => result.chunk.text.includes("alpha")))).toEqual(
        context.subject.stores.vector ? ["other"] : [],
      );
      const beta = await searchBoth(context.subject.stores, orgId, "beta", 10, { principal: reader });
      expect(beta.keyword.map((result) => [result.chunk.text, result.chunk.contentHash])).toEqual([["beta only", "doc:v2"]]);
      expect((await context.subject.stores.registry.contentHashes(orgId, ["doc"])).get("doc")).toBe("doc:v2");
      await write(orgId, [], ["doc", "never-existed"]);
      expect((await searchBoth(context.subject.stores, orgId, "beta", 10, { principal: reader })).keyword).toEqual([]);
      expect(await context.subject.stores.registry.contentHashes(orgId, ["doc", "other"])).toEqual(new Map([["other", "other:v1"]]));
    },
    timeout,
  );

  it(
    "isolates organisations, including ids that differ only in case or punctuation",
    async () => {
      const base = randomUUID();
      const [first, second, third] = [`Contract-${base}`, `contract-${base}`, `contract_${base}`];
      await write(first, [await contractDocument("secret", ["the launch code is pineapple"], { acl: "|user:_all_|" })]);
      for (const orgId of [second, third]) {
        const { keyword, vector } = await searchBoth(context.subject.stores, orgId, "launch code pineapple", 10, { principal: reader });
        expect(keyword).toEqual([]);
        expect(vector ?? []).toEqual([]);
        expect(await context.subject.stores.registry.contentHashes(orgId, ["secret"])).toEqual(new Map());
        expect(await context.subject.stores.keyword.count(orgId)).toBe(0);
      }
      expect((await searchBoth(context.subject.stores, first, "pineapple", 10, { principal: reader })).keyword).toHaveLength(1);
    },
    timeout,
  );

  it(
    "answers an empty or unknown organisation with nothing",
    async () => {
      const orgId = organisation("empty");
      const { keyword, vector } = await searchBoth(context.subject.stores, orgId, "anything at all", 10, { principal: reader });
      expect(keyword).toEqual([]);
      expect(vector ?? []).toEqual([]);
      expect(await context.subject.stores.keyword.count(orgId)).toBe(0);
      expect(await context.subject.stores.registry.derivedDocuments(orgId, ["x"])).toEqual([]);
      await write(orgId, [], ["not-there"]);
    },
    timeout,
  );

  it(
    "keeps unicode text intact and finds it",
    async () => {
      const orgId = organisation("unicode");
      const text = "Ünïcödé naïve café — 東京都の天気 😀 «quoted» \"double\" 'single' \\ back";
      await write(orgId, [await contractDocument("unicode", [text], { title: "Tïtle ✓" })]);
      const { keyword } = await searchBoth(context.subject.stores, orgId, "café", 5, { principal: reader });
      expect(keyword[0]?.chunk.text).toBe(text);
      expect(keyword[0]?.chunk.title).toBe("Tïtle ✓");
      expect(
        (await searchBoth(context.subject.stores, orgId, "東京", 5, { principal: reader })).keyword.map((result) => result.chunk.docId),
      ).toEqual(["unicode"]);
    },
    timeout,
  );
}
