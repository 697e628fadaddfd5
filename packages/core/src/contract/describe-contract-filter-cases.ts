/**
 * Contract cases of filters: ACL pre-filtering that fills top-k, principal names that try to break
 * the filter, document and metadata filters, and counting a query's matches under them. Registered
 * by `describeDocumentStoresContract`.
 */
import { expect, it } from "vitest";
import { canRead } from "../acl/evaluate-access.js";
import { normalizePrincipal, type Principal } from "../acl/principal.js";
import type { ChunkFilter } from "../stores/chunk-filter.js";
import { chunkId, type DocumentVersion } from "../stores/chunk-record.js";
import { type ContractContext, contractDocument, docIdsOf, reader, searchBoth, stranger } from "./document-stores-contract-fixtures.js";

/** Registers the filter cases of the document stores contract in the current `describe`. */
export function describeFilterCases(context: ContractContext): void {
  const { timeout, organisation, write } = context;
  it(
    "pre-filters by principal: among 1,000 unreadable documents matching the query, top-k holds the 5 readable ones and no unreadable one",
    async () => {
      const orgId = organisation("acl");
      const documents: DocumentVersion[] = [];
      for (let index = 0; index < 1000; index++) {
        documents.push(
          await contractDocument(`private-${index}`, [`quarterly budget report number ${index} with budget figures`], {
            acl: "|user:someone-else@example.org|",
            owner: "boss@example.org",
          }),
        );
      }
      const readable = [
        await contractDocument("by-owner", ["budget report owned by the reader"], { owner: "reader@example.org", acl: "" }),
        await contractDocument("by-user", ["budget report shared with the reader"], { acl: "|user:Reader@Example.org|" }),
        await contractDocument("by-role", ["budget report for staff"], { acl: "|role:staff|" }),
        await contractDocument("by-group", ["budget report for readers"], { acl: "|group:readers|" }),
        await contractDocument("by-everyone", ["budget report for everyone"], { acl: "|user:_all_|deny:stranger@example.org|" }),
      ];
      const blocked = [
        await contractDocument("denied", ["budget report denied to the reader"], { acl: "|user:_all_|deny:reader@example.org|" }),
        await contractDocument("owner-denied", ["budget report owned but denied"], {
          owner: "reader@example.org",
          acl: "|deny:reader@example.org|",
        }),
      ];
      await write(orgId, [...documents, ...readable, ...blocked]);
      const { keyword, vector } = await searchBoth(context.subject.stores, orgId, "budget report", 10, { principal: reader });
      const expected = ["by-everyone", "by-group", "by-owner", "by-role", "by-user"];
      expect(docIdsOf(keyword)).toEqual(expected);
      if (vector) expect(docIdsOf(vector)).toEqual(expected);
      const strangers = await searchBoth(context.subject.stores, orgId, "budget report", 10, { principal: stranger });
      expect(docIdsOf(strangers.keyword)).toEqual(["denied"]);
    },
    timeout * 2,
  );

  it(
    "cannot be tricked by quotes, brackets or operators in user, role or group names",
    async () => {
      const orgId = organisation("injection");
      const hostile = [
        'a"b@example.org',
        "o'hara@example.org",
        "back\\slash@example.org",
        "x]y@example.org",
        "p||q",
        'x" or 1==1 or "',
        "' or '1'='1",
      ];
      await write(orgId, [
        await contractDocument("secret", ["classified operations manual"], { acl: "|user:boss@example.org|", owner: "boss@example.org" }),
        ...(await Promise.all(
          hostile.map((name, index) =>
            contractDocument(`hostile-${index}`, [`classified note for a tricky name ${index}`], {
              acl: `|role:${name}|`,
              owner: "boss@example.org",
            }),
          ),
        )),
      ]);
      const documents = [
        { docId: "secret", ownerId: "boss@example.org", acl: "|user:boss@example.org|" },
        ...hostile.map((name, index) => ({ docId: `hostile-${index}`, ownerId: "boss@example.org", acl: `|role:${name}|` })),
      ];
      for (const name of hostile) {
        for (const principal of [
          { userName: name, roles: [name], groups: [name] },
          { userName: `${name}@example.org`, roles: [`${name}]`, `${name}"`], groups: [`${name})`, `${name}'`] },
        ] as Principal[]) {
          const { keyword, vector } = await searchBoth(context.subject.stores, orgId, "classified", 50, { principal });
          // The oracle: the seven rules on the stored owner and ACL.
          const allowed = documents
            .filter((document) => canRead(normalizePrincipal(principal), document))
            .map((document) => document.docId);
          expect(docIdsOf(keyword), `principal ${JSON.stringify(principal)}`).toEqual(allowed.sort());
          if (vector) expect(docIdsOf(vector), `principal ${JSON.stringify(principal)}`).toEqual(allowed.sort());
        }
      }
      expect(
        docIdsOf(
          (
            await searchBoth(context.subject.stores, orgId, "classified", 50, {
              principal: { userName: "", roles: ['x" or 1==1 or "'], groups: [] },
            })
          ).keyword,
        ),
      ).toEqual(["hostile-5"]);
    },
    timeout * 2,
  );

  it(
    "applies document and metadata filters: equality, lists and ISO date ranges",
    async () => {
      const orgId = organisation("metadata");
      await write(orgId, [
        await contractDocument("a.pdf", ["invoice for march"], {
          metadata: { type: "pdf", created_at: "2024-03-10T00:00:00Z", pages: 3 },
        }),
        await contractDocument("b.docx", ["invoice for april"], {
          metadata: { type: "docx", created_at: "2024-04-10T00:00:00Z", pages: 7 },
        }),
        await contractDocument("c.pdf", ["invoice for may"], {
          metadata: { type: "pdf", created_at: "2024-05-10T00:00:00Z", pages: 12 },
        }),
      ]);
      const run = async (filter: Omit<ChunkFilter, "principal">) => {
        const { keyword, vector } = await searchBoth(context.subject.stores, orgId, "invoice", 10, { ...filter, principal: reader });
        if (vector) expect(docIdsOf(vector)).toEqual(docIdsOf(keyword));
        return docIdsOf(keyword);
      };
      expect(await run({ metadata: [{ key: "type", op: "eq", value: "pdf" }] })).toEqual(["a.pdf", "c.pdf"]);
      expect(await run({ metadata: [{ key: "type", op: "in", values: ["docx", "md"] }] })).toEqual(["b.docx"]);
      expect(
        await run({
          metadata: [
            { key: "created_at", op: "gte", value: "2024-04-01" },
            { key: "created_at", op: "lte", value: "2024-04-30T23:59:59Z" },
          ],
        }),
      ).toEqual(["b.docx"]);
      expect(await run({ metadata: [{ key: "pages", op: "gte", value: 5 }] })).toEqual(["b.docx", "c.pdf"]);
      expect(await run({ metadata: [{ key: "pages", op: "eq", value: "7" }] })).toEqual([]);
      expect(await run({ docIds: ["a.pdf", "b.docx"] })).toEqual(["a.pdf", "b.docx"]);
      expect(await run({ metadata: [{ key: "missing", op: "eq", value: "x" }] })).toEqual([]);
    },
    timeout,
  );

  it(
    "counts the matches of a query under the principal pre-filter and the metadata filters, with the included results",
    async () => {
      const orgId = organisation("count");
      const count = context.subject.stores.keyword.countByText;
      if (!count) throw new Error(`${context.subject.stores.keyword.name} does not count matches (KeywordIndex.countByText)`);
      await write(orgId, [
        ...(await Promise.all(
          [0, 1, 2, 3, 4].map((index) =>
            contractDocument(`public-${index}`, [`holiday allowance rule ${index}`, `unrelated text ${index}`], {
              metadata: { type: index < 2 ? "pdf" : "md" },
            }),
          ),
        )),
        await contractDocument("private", ["holiday allowance of the board"], { acl: "", owner: "boss@example.org" }),
        await contractDocument("denied", ["holiday allowance withheld"], { acl: "|user:_all_|deny:reader@example.org|" }),
        await contractDocument("other", ["nothing in common"]),
      ]);
      const counted = (filter: Omit<ChunkFilter, "principal">, include?: string[], principal = reader) =>
        count.call(context.subject.stores.keyword, orgId, "holiday allowance", { filter: { ...filter, principal }, include });
      expect(await counted({})).toBe(5);
      expect(await counted({}, undefined, { userName: "boss@example.org", roles: [], groups: [] })).toBe(7);
      expect(await counted({ metadata: [{ key: "type", op: "eq", value: "pdf" }] })).toBe(2);
      // A result of another retriever without the query's words counts too, once; one the filter refuses does not.
      expect(await counted({}, [chunkId("other", 0), chunkId("public-0", 0), chunkId("private", 0)])).toBe(6);
      expect(await counted({ metadata: [{ key: "type", op: "eq", value: "pdf" }] }, [chunkId("other", 0)])).toBe(2);
      expect(await count.call(context.subject.stores.keyword, organisation("empty"), "holiday", { filter: { principal: reader } })).toBe(0);
    },
    timeout,
  );
}
