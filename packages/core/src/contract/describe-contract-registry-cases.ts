/**
 * Contract cases of the document registry: derived documents, document records, paged principal-
 * filtered listings, a version's stored chunks, and deleting everything of a document. Registered
 * by `describeDocumentStoresContract`.
 */
import { expect, it } from "vitest";
import { chunkId } from "../stores/chunk-record.js";
import type { DocumentQuery, DocumentRecord } from "../stores/document-registry.js";
import { type ContractContext, contractDocument, reader, searchBoth, stranger } from "./document-stores-contract-fixtures.js";

/** Registers the registry cases of the document stores contract in the current `describe`. */
export function describeRegistryCases(context: ContractContext): void {
  const { timeout, organisation, write } = context;
  it(
    "records derived documents",
    async () => {
      const orgId = organisation("derived");
      await write(orgId, [
        await contractDocument("source-1", ["first source"]),
        await contractDocument("source-2", ["second source"]),
        await contractDocument("raptor:summary", ["summary of both sources"], { derivedFrom: ["source-1", "source-2"] }),
      ]);
      expect(await context.subject.stores.registry.derivedDocuments(orgId, ["source-2"])).toEqual(["raptor:summary"]);
      await write(orgId, [], ["raptor:summary"]);
      expect(await context.subject.stores.registry.derivedDocuments(orgId, ["source-2"])).toEqual([]);
    },
    timeout,
  );

  it(
    "describes committed documents: title, source, type, owner, ACL, text hash, chunk count, sources and commit time",
    async () => {
      const orgId = organisation("records");
      const before = Date.now();
      await write(orgId, [
        await contractDocument("report.pdf", ["first page", "second page"], {
          owner: "Ann@Example.org",
          acl: "|group:finance|",
          metadata: { type: "pdf" },
          info: {
            title: "Annual report",
            source: "upload",
            type: "pdf",
            ownerId: "ann@example.org",
            acl: "|group:finance|",
            textHash: "text-1",
          },
        }),
        await contractDocument("raptor:summary", ["a summary"], { derivedFrom: ["report.pdf", "other"], metadata: { type: "summary" } }),
      ]);
      const records = await context.subject.stores.registry.describeDocuments(orgId, ["report.pdf", "raptor:summary", "missing"]);
      expect([...records.keys()].sort()).toEqual(["raptor:summary", "report.pdf"]);
      const report = records.get("report.pdf") as DocumentRecord;
      expect({ ...report, updatedAt: "" }).toEqual({
        docId: "report.pdf",
        contentHash: "report.pdf:v1",
        derivedFrom: [],
        title: "Annual report",
        source: "upload",
        type: "pdf",
        ownerId: "ann@example.org",
        acl: "|group:finance|",
        textHash: "text-1",
        chunkCount: 2,
        updatedAt: "",
      });
      expect(Date.parse(report.updatedAt)).toBeGreaterThanOrEqual(before - 5_000);
      expect(Date.parse(report.updatedAt)).toBeLessThanOrEqual(Date.now() + 5_000);
      expect(records.get("raptor:summary")).toMatchObject({
        derivedFrom: ["other", "report.pdf"],
        title: "Title of raptor:summary",
        source: "contract",
        type: "summary",
        ownerId: "owner@example.org",
        acl: "|user:_all_|",
        textHash: "",
        chunkCount: 1,
      });
      await write(orgId, [await contractDocument("report.pdf", ["only page"], { version: "v2", acl: "", owner: "bob@example.org" })]);
      expect((await context.subject.stores.registry.describeDocuments(orgId, ["report.pdf"])).get("report.pdf")).toMatchObject({
        contentHash: "report.pdf:v2",
        ownerId: "bob@example.org",
        acl: "",
        chunkCount: 1,
        title: "Title of report.pdf",
      });
      expect(await context.subject.stores.registry.describeDocuments(organisation("other"), ["report.pdf"])).toEqual(new Map());
    },
    timeout,
  );

  it(
    "lists the documents a principal may read, in id order, paged, filtered by source, type and owner, never summaries",
    async () => {
      const orgId = organisation("listing");
      const hostile = 'x" or 1==1 or "';
      await write(orgId, [
        await contractDocument("a-public", ["public text"], { metadata: { type: "pdf" } }),
        await contractDocument("b-owned", ["owned text"], { owner: "reader@example.org", acl: "" }),
        await contractDocument("c-role", ["role text"], { acl: "|role:staff|", metadata: { type: "md" } }),
        await contractDocument("d-denied", ["denied text"], { acl: "|user:_all_|deny:reader@example.org|" }),
        await contractDocument("e-private", ["private text"], { acl: "|user:boss@example.org|", owner: "boss@example.org" }),
        await contractDocument("f-group", ["group text"], { acl: "|group:readers|", metadata: { type: "pdf" } }),
        await contractDocument("g-hostile", ["hostile text"], { acl: `|role:${hostile}|`, owner: "boss@example.org" }),
        await contractDocument("Ünïcödé", ["unicode text"]),
        await contractDocument("raptor:summary", ["summary text"], { derivedFrom: ["a-public"] }),
      ]);
      const list = async (query: Partial<DocumentQuery>) => {
        const page = await context.subject.stores.registry.listDocuments(orgId, { limit: 100, ...query });
        return { ids: page.documents.map((document) => document.docId), next: page.next };
      };
      const readable = ["a-public", "b-owned", "c-role", "f-group", "Ünïcödé"];
      expect(await list({ principal: reader })).toEqual({ ids: readable, next: null });
      expect((await list({})).ids).toEqual(["a-public", "b-owned", "c-role", "d-denied", "e-private", "f-group", "g-hostile", "Ünïcödé"]);
      const pages: string[][] = [];
      let after: string | undefined;
      for (;;) {
        const page = await list({ principal: reader, limit: 2, after });
        pages.push(page.ids);
        if (page.next === null) break;
        expect(page.next).toBe(page.ids.at(-1));
        after = page.next;
      }
      expect(pages).toEqual([["a-public", "b-owned"], ["c-role", "f-group"], ["Ünïcödé"]]);
      expect((await list({ principal: reader, type: "pdf" })).ids).toEqual(["a-public", "f-group"]);
      expect((await list({ principal: reader, ownerId: "Reader@Example.org" })).ids).toEqual(["b-owned"]);
      expect((await list({ source: "contract", ownerId: "boss@example.org" })).ids).toEqual(["e-private", "g-hostile"]);
      expect((await list({ source: "elsewhere" })).ids).toEqual([]);
      expect((await list({ principal: { userName: hostile, roles: [hostile], groups: [hostile] } })).ids).toEqual([
        "a-public",
        "d-denied",
        "g-hostile",
        "Ünïcödé",
      ]);
      expect((await list({ principal: stranger })).ids).toEqual(["a-public", "d-denied", "Ünïcödé"]);
      const first = (await context.subject.stores.registry.listDocuments(orgId, { principal: reader, limit: 1 })).documents[0];
      expect(first).toMatchObject({ docId: "a-public", title: "Title of a-public", type: "pdf", chunkCount: 1, acl: "|user:_all_|" });
      expect(await context.subject.stores.registry.listDocuments(organisation("empty"), { limit: 10 })).toEqual({
        documents: [],
        next: null,
      });
    },
    timeout,
  );

  it(
    "reads a version's stored chunks back in order, with embeddings when the stores hold vectors",
    async () => {
      const orgId = organisation("chunks");
      const texts = ["zero chunk", "one chunk", "two chunk"];
      const version = await contractDocument("doc", texts, { acl: "|role:hr|", metadata: { type: "txt", page: 2 } });
      await write(orgId, [version]);
      const chunks = await context.subject.stores.documentChunks(orgId, "doc", "doc:v1");
      expect(chunks.map((chunk) => [chunk.id, chunk.chunkIndex, chunk.text, chunk.acl, chunk.contentHash])).toEqual(
        texts.map((text, index) => [chunkId("doc", index), index, text, "|role:hr|", "doc:v1"]),
      );
      expect(chunks[1]?.metadata).toMatchObject({ doc_id: "doc", chunk_index: 1, type: "txt", page: 2 });
      if (context.subject.stores.vector) {
        chunks.forEach((chunk, index) => {
          const expected = version.chunks[index]?.embedding as Float32Array;
          expect(chunk.embedding?.length).toBe(expected.length);
          for (let dimension = 0; dimension < expected.length; dimension++)
            expect(chunk.embedding?.[dimension]).toBeCloseTo(expected[dimension] as number, 5);
        });
      }
      expect(await context.subject.stores.documentChunks(orgId, "doc", "doc:v0")).toEqual([]);
      expect(await context.subject.stores.documentChunks(orgId, "missing", "missing:v1")).toEqual([]);
      expect(await context.subject.stores.documentChunks(organisation("none"), "doc", "doc:v1")).toEqual([]);
    },
    timeout,
  );

  it(
    "deletes every chunk, vector, full-text entry, registry record and summary of a document",
    async () => {
      const orgId = organisation("deletion");
      await write(orgId, [
        await contractDocument("gone", ["zebra crossing rules", "zebra stripes"]),
        await contractDocument("kept", ["giraffe necks"]),
        await contractDocument("raptor:summary", ["summary about zebra and giraffe"], { derivedFrom: ["gone", "kept"] }),
      ]);
      const derived = await context.subject.stores.registry.derivedDocuments(orgId, ["gone"]);
      expect(derived).toEqual(["raptor:summary"]);
      await write(orgId, [], ["gone", ...derived]);
      const zebra = await searchBoth(context.subject.stores, orgId, "zebra", 10, {});
      expect(zebra.keyword).toEqual([]);
      expect((zebra.vector ?? []).map((result) => result.chunk.docId)).toEqual(context.subject.stores.vector ? ["kept"] : []);
      expect([...(await context.subject.stores.registry.describeDocuments(orgId, ["gone", "raptor:summary", "kept"])).keys()]).toEqual([
        "kept",
      ]);
      expect(
        (await context.subject.stores.registry.listDocuments(orgId, { limit: 10 })).documents.map((document) => document.docId),
      ).toEqual(["kept"]);
      expect(await context.subject.stores.documentChunks(orgId, "gone", "gone:v1")).toEqual([]);
      expect(await context.subject.stores.registry.derivedDocuments(orgId, ["kept"])).toEqual([]);
      expect(await context.subject.stores.keyword.count(orgId)).toBe(1);
      if (context.subject.stores.vector) expect(await context.subject.stores.vector.count(orgId)).toBe(1);
    },
    timeout,
  );
}
