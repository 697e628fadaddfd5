import { DocqaError } from "@docqa/core";
import { type ChunkRecord, chunkId, type DocumentVersion } from "@docqa/core/stores";
import { describe, expect, it } from "vitest";
import type { SearchEngineClient, SearchEngineRequest, SearchEngineRequestOptions, SearchEngineResponse } from "./search-engine-client.js";
import { createSearchEngineIndex } from "./search-engine-index.js";

type Handler = (request: SearchEngineRequest, options: SearchEngineRequestOptions) => SearchEngineResponse;

/** A scripted client that records requests; `handle` answers them (unscripted calls fail the test). */
function scriptedClient(handle: Handler) {
  const requests: SearchEngineRequest[] = [];
  let closed = 0;
  const client: SearchEngineClient = {
    engine: "opensearch",
    async request(request, options = {}) {
      requests.push(request);
      const response = handle(request, options);
      if (response.statusCode >= 300 && !(options.allowStatus ?? []).includes(response.statusCode)) {
        throw new DocqaError("store_unavailable", `HTTP ${response.statusCode}`, { component: "opensearch" });
      }
      return response;
    },
    async close() {
      closed++;
    },
  };
  return { client, requests, closedCount: () => closed };
}

const ok = (body: unknown = {}): SearchEngineResponse => ({ statusCode: 200, body });
const missingIndex: SearchEngineResponse = {
  statusCode: 404,
  body: { error: { type: "index_not_found_exception", reason: "no such index" }, status: 404 },
};

function document(docId: string, texts: string[], contentHash = `${docId}:v1`): DocumentVersion {
  const chunks: ChunkRecord[] = texts.map((text, chunkIndex) => ({
    id: chunkId(docId, chunkIndex),
    docId,
    chunkIndex,
    text,
    title: "T",
    source: "s",
    ownerId: "owner@x.org",
    acl: "|user:_all_|",
    metadata: { type: "txt" },
    contentHash,
  }));
  return { docId, contentHash, chunks };
}

/** Answers every item of a bulk request with `status` (default 201), or as `statusOf` says. */
function bulkAnswer(request: SearchEngineRequest, statusOf: (id: string) => number = () => 201): SearchEngineResponse {
  const lines = request.bulkBody ?? [];
  const items: unknown[] = [];
  for (let index = 0; index < lines.length; index++) {
    const [action, target] = Object.entries(lines[index] as Record<string, { _id: string }>)[0] as [string, { _id: string }];
    if (action !== "delete") index++;
    const status = statusOf(target._id);
    items.push({
      [action]: {
        _id: target._id,
        status,
        ...(status >= 300
          ? { error: { type: status === 429 ? "rejected_execution_exception" : "mapper_parsing_exception", reason: "no" } }
          : {}),
      },
    });
  }
  return ok({ errors: items.some((item) => JSON.stringify(item).includes('"error"')), items });
}

const orgId = "Acme Corp";

describe("createSearchEngineIndex", () => {
  it("names itself after the engine, and validates the base name when created", () => {
    expect(createSearchEngineIndex({ engine: "elasticsearch" }).name).toBe("elasticsearch");
    expect(createSearchEngineIndex({}).name).toBe("search-engine");
    expect(createSearchEngineIndex({ client: scriptedClient(() => ok()).client }).name).toBe("opensearch");
    expect(() => createSearchEngineIndex({ indexBase: "Docs" })).toThrow(/FULLTEXT_INDEX/);
  });

  it("answers searches, counts and look-ups of an organisation without indexes with nothing", async () => {
    const { client } = scriptedClient(() => missingIndex);
    const index = createSearchEngineIndex({ client, indexBase: "docs" });
    expect(
      await index.searchByText(orgId, "anything", { topK: 5, filter: { principal: { userName: "a", roles: [], groups: [] } } }),
    ).toEqual([]);
    expect(await index.count(orgId)).toBe(0);
    expect(await index.contentHashes(orgId, ["a"])).toEqual(new Map());
    expect(await index.derivedDocuments(orgId, ["a"])).toEqual([]);
    await index.prune(orgId, new Map([["a", null]]));
  });

  it("creates the chunk index with its alias on first write, then bulk-writes with refresh=wait_for and require_alias", async () => {
    const { client, requests } = scriptedClient((request) => (request.bulkBody ? bulkAnswer(request) : ok({ acknowledged: true })));
    const index = createSearchEngineIndex({ client, indexBase: "docs", k1: 1.1, b: 0.3 });
    const names = index.indexNames(orgId);
    await index.write(orgId, [document("a", ["one", "two"])]);
    await index.write(orgId, [document("b", ["three"])]);
    expect(requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      `PUT /${names.chunksIndex}`,
      `POST /${names.chunks}/_bulk`,
      `POST /${names.chunks}/_bulk`,
    ]);
    const create = requests[0]?.body as { aliases: unknown; settings: { index: { similarity: unknown } } };
    expect(create.aliases).toEqual({ [names.chunks]: {} });
    expect(create.settings.index.similarity).toEqual({ docqa_bm25: { type: "BM25", k1: 1.1, b: 0.3 } });
    expect(requests[1]?.querystring).toEqual({ refresh: "wait_for", require_alias: true });
    expect(requests[1]?.bulkBody?.[0]).toEqual({ index: { _id: "a::0::a:v1" } });
    expect(requests[1]?.bulkBody?.[1]).toMatchObject({ doc_id: "a", chunk_index: 0, grants: ["user:owner@x.org", "all"], denied: [] });
  });

  it("treats an index created concurrently by another process as created", async () => {
    const { client, requests } = scriptedClient((request) =>
      request.method === "PUT"
        ? { statusCode: 400, body: { error: { type: "resource_already_exists_exception", reason: "exists" }, status: 400 } }
        : bulkAnswer(request),
    );
    await createSearchEngineIndex({ client }).write(orgId, [document("a", ["x"])]);
    expect(requests.map((request) => request.method)).toEqual(["PUT", "POST"]);
  });

  it("refuses to use an index it did not create under the alias name", async () => {
    const { client } = scriptedClient(() => ({
      statusCode: 400,
      body: { error: { type: "invalid_alias_name_exception", reason: "an index exists with the same name as the alias" }, status: 400 },
    }));
    const error = await createSearchEngineIndex({ client })
      .write(orgId, [document("a", ["x"])])
      .catch((caught: unknown) => caught);
    expect(DocqaError.isInstance(error) && error.code).toBe("store_unavailable");
    expect((error as Error).message).toContain("that docqa did not create");
  });

  it("fails a write with a partial bulk failure, naming the failed items", async () => {
    const { client } = scriptedClient((request) =>
      request.bulkBody ? bulkAnswer(request, (id) => (id.startsWith("b::1") ? 400 : 201)) : ok(),
    );
    const error = await createSearchEngineIndex({ client })
      .write(orgId, [document("a", ["x"]), document("b", ["y", "z"])])
      .catch((caught: unknown) => caught);
    expect(DocqaError.isInstance(error) && error.code).toBe("store_unavailable");
    expect((error as DocqaError).component).toBe("opensearch");
    expect((error as Error).message).toContain('1 of 3 bulk items failed: index "b::1::b:v1": 400 mapper_parsing_exception: no');
  });

  it("creates the index again on the next write after finding it deleted", async () => {
    let deleted = false;
    const { client, requests } = scriptedClient((request) => {
      if (!request.bulkBody) return ok();
      if (!deleted) return bulkAnswer(request);
      deleted = false;
      const items = [{ index: { _id: "a::0::a:v1", status: 404, error: { type: "index_not_found_exception", reason: "no such index" } } }];
      return ok({ errors: true, items });
    });
    const index = createSearchEngineIndex({ client });
    await index.write(orgId, [document("a", ["x"])]); // creates
    deleted = true;
    await expect(index.write(orgId, [document("a", ["x"])])).rejects.toThrow("index_not_found_exception");
    await index.write(orgId, [document("a", ["x"])]);
    expect(requests.map((request) => request.method)).toEqual(["PUT", "POST", "POST", "PUT", "POST"]);
  });

  it("sends again the items the engine rejected as overloaded", async () => {
    let attempts = 0;
    const { client, requests } = scriptedClient((request) => {
      if (!request.bulkBody) return ok();
      attempts++;
      return bulkAnswer(request, (id) => (attempts === 1 && id.startsWith("a::1") ? 429 : 201));
    });
    await createSearchEngineIndex({ client }).write(orgId, [document("a", ["x", "y", "z"])]);
    const bulks = requests.filter((request) => request.bulkBody);
    expect(bulks.map((request) => request.bulkBody?.length)).toEqual([6, 2]);
    expect(bulks[1]?.bulkBody?.[0]).toEqual({ index: { _id: "a::1::a:v1" } });
  });

  it("splits large writes into bounded bulk requests", async () => {
    const { client, requests } = scriptedClient((request) => (request.bulkBody ? bulkAnswer(request) : ok()));
    const texts = Array.from({ length: 25 }, (_, index) => `chunk ${index}`);
    await createSearchEngineIndex({ client, bulkLimits: { maxDocuments: 10 } }).write(orgId, [document("a", texts)]);
    expect(
      requests
        .filter((request) => request.bulkBody)
        .map((request) => (request.bulkBody?.length ?? 0) / 2)
        .sort(),
    ).toEqual([10, 10, 5]);
  });

  it("searches the chunk alias with the ACL pre-filter and maps hits to scored chunks", async () => {
    const source = {
      chunk_id: "a::0",
      doc_id: "a",
      chunk_index: 0,
      content_hash: "h",
      title: "T",
      text: "barking dogs",
      source: "s",
      owner_id: "o@x.org",
      acl: "|user:_all_|",
      metadata: { type: "txt" },
    };
    const { client, requests } = scriptedClient(() => ok({ hits: { hits: [{ _id: "a::0::h", _score: 1.5, _source: source }] } }));
    const index = createSearchEngineIndex({ client, indexBase: "docs" });
    const results = await index.searchByText(orgId, "dogs", {
      topK: 3,
      filter: { principal: { userName: "Ann@x.org", roles: [], groups: [] } },
    });
    expect(results).toEqual([
      {
        score: 1.5,
        chunk: {
          id: "a::0",
          docId: "a",
          chunkIndex: 0,
          contentHash: "h",
          title: "T",
          text: "barking dogs",
          source: "s",
          ownerId: "o@x.org",
          acl: "|user:_all_|",
          metadata: { type: "txt" },
        },
      },
    ]);
    expect(requests[0]?.path).toBe(`/${index.indexNames(orgId).chunks}/_search`);
    expect(JSON.stringify(requests[0]?.body)).toContain('"must_not":[{"term":{"denied":"ann@x.org"}}]');
    expect(await index.searchByText(orgId, "dogs", { topK: 0, filter: {} })).toEqual([]);
    expect(requests).toHaveLength(1);
  });

  it("rejects a malformed metadata filter before sending anything", async () => {
    const { client, requests } = scriptedClient(() => ok());
    const search = createSearchEngineIndex({ client }).searchByText(orgId, "x", {
      topK: 3,
      filter: { metadata: [{ key: "k", op: "regex" } as never] },
    });
    await expect(search).rejects.toMatchObject({ code: "invalid_request" });
    expect(requests).toEqual([]);
  });

  it("prunes with delete_by_query, and fails when the engine reports failures", async () => {
    let failures: unknown[] = [];
    const { client, requests } = scriptedClient(() => ok({ deleted: 2, failures, timed_out: false }));
    const index = createSearchEngineIndex({ client });
    await index.prune(orgId, new Map([["a", "h2"]]));
    expect(requests[0]?.path).toBe(`/${index.indexNames(orgId).chunks}/_delete_by_query`);
    expect(requests[0]?.querystring).toEqual({ refresh: true, conflicts: "proceed" });
    failures = [{ cause: { type: "x" } }];
    await expect(index.prune(orgId, new Map([["a", null]]))).rejects.toMatchObject({ code: "store_unavailable" });
    await index.prune(orgId, new Map());
    expect(requests).toHaveLength(2);
  });

  it("commits in the registry, reads hashes with mget, and skips removals when nothing was ever committed", async () => {
    const { client, requests } = scriptedClient((request) => {
      if (request.method === "HEAD") return { statusCode: 404, body: false };
      if (request.path.endsWith("/_mget"))
        return ok({
          docs: [
            { _id: "d:a", found: true, _source: { doc_id: "a", content_hash: "h1" } },
            { _id: "d:b", found: false },
          ],
        });
      return request.bulkBody ? bulkAnswer(request) : ok();
    });
    const index = createSearchEngineIndex({ client });
    const names = index.indexNames(orgId);
    await index.commit(orgId, { write: [], remove: ["x"] });
    expect(requests.map((request) => `${request.method} ${request.path}`)).toEqual([`HEAD /${names.registry}`]);
    const info = { title: "A", source: "upload", type: "pdf", ownerId: "Ann@x.org", acl: "|role:hr|deny:bob@x.org|", textHash: "t1" };
    await index.commit(orgId, { write: [{ docId: "a", contentHash: "h1", derivedFrom: ["s"], info, chunkCount: 3 }], remove: ["b"] });
    expect(requests.slice(1).map((request) => `${request.method} ${request.path}`)).toEqual([
      `PUT /${names.registryIndex}`,
      `POST /${names.registry}/_bulk`,
    ]);
    expect(requests[2]?.bulkBody).toEqual([
      { index: { _id: "d:a" } },
      {
        doc_id: "a",
        content_hash: "h1",
        derived_from: ["s"],
        title: "A",
        source: "upload",
        type: "pdf",
        owner_id: "ann@x.org",
        acl: "|role:hr|deny:bob@x.org|",
        grants: ["user:ann@x.org", "role:hr"],
        denied: ["bob@x.org"],
        text_hash: "t1",
        chunk_count: 3,
        updated_at: expect.any(Number),
      },
      { delete: { _id: "d:b" } },
    ]);
    expect(await index.contentHashes(orgId, ["a", "b", "a"])).toEqual(new Map([["a", "h1"]]));
    expect(requests.at(-1)?.body).toEqual({ ids: ["d:a", "d:b"] });
  });

  it("pages through derived documents", async () => {
    let page = 0;
    const { client, requests } = scriptedClient(() => {
      page++;
      const count = page === 1 ? 1000 : 3;
      return ok({
        hits: {
          hits: Array.from({ length: count }, (_, index) => ({ _source: { doc_id: `p${page}-${index}` }, sort: [`p${page}-${index}`] })),
        },
      });
    });
    const found = await createSearchEngineIndex({ client }).derivedDocuments(orgId, ["s"]);
    expect(found).toHaveLength(1003);
    expect((requests[1]?.body as { search_after?: unknown } | undefined)?.search_after).toEqual(["p1-999"]);
  });

  it("closes its client once, and refuses calls afterwards", async () => {
    const { client, closedCount } = scriptedClient(() => ok({ count: 3 }));
    const index = createSearchEngineIndex({ client });
    expect(await index.count(orgId)).toBe(3);
    await index.close();
    await index.close();
    expect(closedCount()).toBe(1);
    await expect(index.count(orgId)).rejects.toMatchObject({ code: "store_unavailable" });
  });
});
