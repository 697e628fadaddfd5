import { DocqaError, normalizePrincipal, type Principal } from "@docqa/core";
import { type ChunkFilter, type ChunkRecord, chunkId, type MetadataCondition, matchesChunkFilter } from "@docqa/core/stores";
import { describe, expect, it } from "vitest";
import { type StoredChunk, storedChunk } from "./chunk-documents.js";
import {
  accessClauses,
  chunkFilterClauses,
  derivedDocumentsBody,
  matchNothing,
  maximumTermsPerQuery,
  metadataConditionClause,
  pruneBodies,
  type QueryClause,
  termsClause,
  textSearchBody,
} from "./search-queries.js";

/**
 * A reference interpreter of the query DSL subset the builders emit (bool, term, terms, range,
 * exists, nested, match_none), with the engines' semantics: keyword values compare by code point,
 * a multi-valued field matches when any value does, a nested query matches when one entry does.
 */
function evaluate(clause: QueryClause, document: Record<string, unknown>): boolean {
  const [[kind, body]] = Object.entries(clause) as [[string, Record<string, unknown>]];
  const valuesOf = (field: string): unknown[] => {
    const value = field.split(".").reduce<unknown>((current, part) => (current as Record<string, unknown> | undefined)?.[part], document);
    if (value === undefined || value === null) return [];
    return Array.isArray(value) ? value : [value];
  };
  switch (kind) {
    case "match_none":
      return false;
    case "bool": {
      const all = (key: string) => ((body[key] as QueryClause[] | undefined) ?? []).every((inner) => evaluate(inner, document));
      const none = ((body.must_not as QueryClause[] | undefined) ?? []).every((inner) => !evaluate(inner, document));
      const should = body.should as QueryClause[] | undefined;
      const anyShould = !should || should.some((inner) => evaluate(inner, document));
      return all("filter") && all("must") && none && anyShould;
    }
    case "term": {
      const [[field, value]] = Object.entries(body) as [[string, unknown]];
      return valuesOf(field).some((candidate) => candidate === value);
    }
    case "terms": {
      const [[field, values]] = Object.entries(body) as [[string, unknown[]]];
      return valuesOf(field).some((candidate) => values.includes(candidate));
    }
    case "exists":
      return valuesOf(body.field as string).length > 0;
    case "range": {
      const [[field, bounds]] = Object.entries(body) as [[string, { gte?: string | number; lte?: string | number }]];
      return valuesOf(field).some((candidate) => {
        const compare = (left: unknown, right: unknown) =>
          typeof left === "string" ? compareCodePoints(left, right as string) : (left as number) - (right as number);
        if (bounds.gte !== undefined && compare(candidate, bounds.gte) < 0) return false;
        if (bounds.lte !== undefined && compare(candidate, bounds.lte) > 0) return false;
        return true;
      });
    }
    case "nested": {
      const entries = (document[body.path as string] as Record<string, unknown>[] | undefined) ?? [];
      return entries.some((entry) => evaluate(body.query as QueryClause, { [body.path as string]: entry }));
    }
    default:
      throw new Error(`the reference interpreter does not know ${kind}`);
  }
}

function compareCodePoints(left: string, right: string): number {
  const a = [...left].map((character) => character.codePointAt(0) as number);
  const b = [...right].map((character) => character.codePointAt(0) as number);
  for (let index = 0; index < Math.min(a.length, b.length); index++)
    if (a[index] !== b[index]) return (a[index] as number) - (b[index] as number);
  return a.length - b.length;
}

function matchesStored(filter: ChunkFilter, stored: StoredChunk): boolean {
  const clauses = chunkFilterClauses(filter);
  return evaluate({ bool: { filter: clauses.filter, must_not: clauses.mustNot } }, stored as unknown as Record<string, unknown>);
}

function chunk(overrides: Partial<ChunkRecord> = {}): ChunkRecord {
  const docId = overrides.docId ?? "doc";
  return {
    id: chunkId(docId, 0),
    docId,
    chunkIndex: 0,
    text: "text",
    title: "title",
    source: "test",
    ownerId: "owner@example.org",
    acl: "|user:_all_|",
    metadata: {},
    contentHash: "hash",
    ...overrides,
  };
}

/** Every key anywhere in a JSON value. */
function keysOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(keysOf);
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([key, inner]) => [key, ...keysOf(inner)]);
}

const hostile = [
  'a"b@example.org',
  "o'hara@example.org",
  "back\\slash",
  "x]y",
  "p||q",
  'x" or 1==1 or "',
  "' or '1'='1",
  "*",
  "a OR b",
  '{"match_all":{}}',
  '"}},{"match_all":{}},{"term":{"x":"',
  "role:admin",
  "user:_all_",
  "all",
];

describe("accessClauses", () => {
  it("filters on the principal's tokens and excludes chunks denying the user", () => {
    expect(accessClauses({ userName: " Reader@Example.org ", roles: ["Staff"], groups: ["readers"] })).toEqual({
      filter: [{ terms: { grants: ["all", "user:reader@example.org", "role:staff", "group:readers"] } }],
      mustNot: [{ term: { denied: "reader@example.org" } }],
    });
  });

  it("has no deny check for an empty user name", () => {
    expect(accessClauses({ userName: "", roles: [], groups: [] })).toEqual({ filter: [{ terms: { grants: ["all"] } }], mustNot: [] });
  });

  it("puts hostile names into term values, verbatim and lower-cased, never into keys", () => {
    for (const name of hostile) {
      const clauses = accessClauses({ userName: name, roles: [name], groups: [name] });
      const lower = name.trim().toLowerCase();
      expect(clauses.filter).toEqual([{ terms: { grants: ["all", `user:${lower}`, `role:${lower}`, `group:${lower}`] } }]);
      expect(clauses.mustNot).toEqual([{ term: { denied: lower } }]);
      expect(keysOf(clauses)).toEqual(["filter", "terms", "grants", "mustNot", "term", "denied"]);
    }
  });
});

describe("metadataConditionClause", () => {
  const nested = (key: string, value: QueryClause) => ({
    nested: { path: "meta", query: { bool: { filter: [{ term: { "meta.key": key } }, value] } } },
  });

  it("compares each type in its own sub-field", () => {
    expect(metadataConditionClause({ key: "type", op: "eq", value: "pdf" })).toEqual(nested("type", { term: { "meta.string": "pdf" } }));
    expect(metadataConditionClause({ key: "pages", op: "eq", value: 7 })).toEqual(nested("pages", { term: { "meta.number": 7 } }));
    expect(metadataConditionClause({ key: "draft", op: "eq", value: false })).toEqual(nested("draft", { term: { "meta.boolean": false } }));
    expect(metadataConditionClause({ key: "created_at", op: "gte", value: "2024-04-01" })).toEqual(
      nested("created_at", { range: { "meta.string": { gte: "2024-04-01" } } }),
    );
    expect(metadataConditionClause({ key: "pages", op: "lte", value: 5 })).toEqual(
      nested("pages", { range: { "meta.number": { lte: 5 } } }),
    );
  });

  it("groups the values of `in` by type", () => {
    expect(metadataConditionClause({ key: "k", op: "in", values: ["a", 1, "b", true, 1] })).toEqual(
      nested("k", {
        bool: {
          should: [{ terms: { "meta.string": ["a", "b"] } }, { terms: { "meta.number": [1] } }, { terms: { "meta.boolean": [true] } }],
          minimum_should_match: 1,
        },
      }),
    );
    expect(metadataConditionClause({ key: "k", op: "in", values: ["a"] })).toEqual(nested("k", { terms: { "meta.string": ["a"] } }));
    expect(metadataConditionClause({ key: "k", op: "in", values: [] })).toEqual(matchNothing);
  });

  it("matches nothing for NaN, and handles infinite bounds as the reference does", () => {
    expect(metadataConditionClause({ key: "n", op: "eq", value: Number.NaN })).toEqual(matchNothing);
    expect(metadataConditionClause({ key: "n", op: "gte", value: Number.NaN })).toEqual(matchNothing);
    expect(metadataConditionClause({ key: "n", op: "gte", value: Number.POSITIVE_INFINITY })).toEqual(matchNothing);
    expect(metadataConditionClause({ key: "n", op: "lte", value: Number.POSITIVE_INFINITY })).toEqual(
      nested("n", { exists: { field: "meta.number" } }),
    );
    expect(metadataConditionClause({ key: "n", op: "gte", value: Number.NEGATIVE_INFINITY })).toEqual(
      nested("n", { exists: { field: "meta.number" } }),
    );
  });

  it("keeps hostile keys as term values: dots, wildcards and JSON fragments are data", () => {
    for (const key of [...hostile, "a.b", "meta.string", "meta", "__proto__", "constructor", "", " "]) {
      const clause = metadataConditionClause({ key, op: "eq", value: "v" });
      expect(clause).toEqual(nested(key, { term: { "meta.string": "v" } }));
      expect(new Set(keysOf(clause))).toEqual(new Set(["nested", "path", "query", "bool", "filter", "term", "meta.key", "meta.string"]));
    }
  });

  it("rejects malformed conditions with invalid_request", () => {
    const bad = [
      { key: 1, op: "eq", value: "x" },
      { key: "k", op: "like", value: "x" },
      { key: "k", op: "eq", value: { $ne: 1 } },
      { key: "k", op: "eq", value: null },
      { key: "k", op: "in", values: "abc" },
      { key: "k", op: "in", values: [["nested"]] },
      { key: "k", op: "gte", value: true },
    ] as unknown as MetadataCondition[];
    for (const condition of bad) {
      let error: unknown;
      try {
        metadataConditionClause(condition);
      } catch (caught) {
        error = caught;
      }
      expect(DocqaError.isInstance(error) && error.code, JSON.stringify(condition)).toBe("invalid_request");
    }
  });
});

describe("chunkFilterClauses", () => {
  it("matches exactly the chunks matchesChunkFilter accepts (reference semantics, randomised)", () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)] as T;
    const people = ["ann@x.org", "bob@x.org", "", 'o"dd@x.org', "carl@x.org"];
    const names = ["hr", "staff", "x]y", "a OR b", "*"];
    const scalars: unknown[] = ["pdf", "docx", "7", 7, 3, 12.5, true, false, "2024-03-10", "2024-05-01", null, ["pdf"], { a: 1 }, "é", "𝒳"];
    const keys = ["type", "pages", "a.b", "flag"];
    const aclFor = () =>
      `|${Array.from({ length: Math.floor(random() * 4) }, () =>
        pick([`user:${pick(people)}`, "user:_all_", `role:${pick(names)}`, `group:${pick(names)}`, `deny:${pick(people)}`]),
      ).join("|")}|`;
    const conditionFor = (): MetadataCondition => {
      const key = pick(keys);
      const op = pick(["eq", "in", "gte", "lte"] as const);
      if (op === "in")
        return { key, op, values: Array.from({ length: Math.floor(random() * 3) }, () => pick(["pdf", "7", 7, true, "docx", 3])) };
      if (op === "eq") return { key, op, value: pick(["pdf", "7", 7, true, false, "é"]) };
      return { key, op, value: pick(["2024-04", "docx", 5, 7, 12.5, "a", "𝒳"]) };
    };
    let matched = 0;
    for (let round = 0; round < 3000; round++) {
      const record = chunk({
        docId: pick(["a", "b", "c"]),
        ownerId: pick(people),
        acl: aclFor(),
        metadata: Object.fromEntries(keys.filter(() => random() < 0.7).map((key) => [key, pick(scalars)])),
      });
      const principal: Principal = normalizePrincipal({
        userName: pick(people),
        roles: [pick(names), pick(names)].slice(0, Math.floor(random() * 3)),
        groups: [pick(names)].slice(0, Math.floor(random() * 2)),
      });
      const filter: ChunkFilter = {
        principal: random() < 0.8 ? principal : undefined,
        docIds: random() < 0.3 ? [pick(["a", "b", "c"]), pick(["a", "b"])] : undefined,
        metadata: random() < 0.7 ? Array.from({ length: 1 + Math.floor(random() * 2) }, conditionFor) : undefined,
      };
      const expected = matchesChunkFilter(record, filter);
      if (expected) matched++;
      expect(matchesStored(filter, storedChunk(record)), JSON.stringify({ record, filter })).toBe(expected);
    }
    expect(matched).toBeGreaterThan(100);
  });

  it("filters on document ids with terms, and an empty list matches nothing", () => {
    expect(chunkFilterClauses({ docIds: ["a", "b", "a"] })).toEqual({ filter: [{ terms: { doc_id: ["a", "b"] } }], mustNot: [] });
    expect(chunkFilterClauses({ docIds: [] }).filter).toEqual([matchNothing]);
    expect(chunkFilterClauses({})).toEqual({ filter: [], mustNot: [] });
  });
});

describe("termsClause", () => {
  it("splits long lists so no terms query exceeds the limit", () => {
    const values = Array.from({ length: maximumTermsPerQuery * 2 + 1 }, (_, index) => `id-${index}`);
    const clause = termsClause("doc_id", values) as { bool: { should: { terms: { doc_id: string[] } }[] } };
    expect(clause.bool.should.map((inner) => inner.terms.doc_id.length)).toEqual([maximumTermsPerQuery, maximumTermsPerQuery, 1]);
    expect(clause.bool.should.flatMap((inner) => inner.terms.doc_id)).toEqual(values);
  });
});

describe("textSearchBody", () => {
  it("matches the question on content, filters without scoring, sorts deterministically", () => {
    const body = textSearchBody("barking dogs", {
      topK: 5,
      filter: { principal: { userName: "ann@x.org", roles: [], groups: [] }, docIds: ["d1"] },
    });
    expect(body).toEqual({
      size: 5,
      track_total_hits: false,
      track_scores: true,
      _source: ["chunk_id", "doc_id", "chunk_index", "content_hash", "title", "text", "source", "owner_id", "acl", "metadata"],
      query: {
        bool: {
          must: [{ match: { content: { query: "barking dogs" } } }],
          filter: [{ terms: { grants: ["all", "user:ann@x.org"] } }, { terms: { doc_id: ["d1"] } }],
          must_not: [{ term: { denied: "ann@x.org" } }],
        },
      },
      sort: [{ _score: { order: "desc" } }, { doc_id: { order: "asc" } }, { chunk_index: { order: "asc" } }],
    });
  });

  it("passes query syntax through as text to analyse, never as query-string syntax", () => {
    for (const query of [...hostile, "title:secret AND acl:*", "(a OR b) NOT c~2^5", "\\", "/regex.*/"]) {
      const body = textSearchBody(query, { topK: 3, filter: {} }) as {
        query: { bool: { must: [{ match: { content: { query: string } } }] } };
      };
      expect(body.query.bool.must[0].match.content.query).toBe(query);
      const keys = keysOf(body);
      for (const forbidden of ["query_string", "simple_query_string", "script", "wildcard", "regexp", "prefix", "fuzzy"]) {
        expect(keys).not.toContain(forbidden);
      }
    }
  });

  it("adds a title clause only with a positive title boost, and clamps the size", () => {
    const body = textSearchBody("x", { topK: 50_000, filter: {}, titleBoost: 2 }) as {
      size: number;
      query: { bool: { should: unknown } };
    };
    expect(body.size).toBe(10_000);
    expect(body.query.bool.should).toEqual([{ match: { title: { query: "x", boost: 2 } } }]);
    expect((textSearchBody("x", { topK: 0, filter: {} }) as { size: number }).size).toBe(0);
  });
});

describe("pruneBodies", () => {
  it("deletes other versions of kept documents and every version of removed ones, in one query", () => {
    const bodies = pruneBodies(
      new Map<string, string | null>([
        ["a", "h1"],
        ["b", null],
      ]),
    );
    expect(bodies).toEqual([
      {
        query: {
          bool: {
            filter: [{ terms: { doc_id: ["a", "b"] } }],
            must_not: [{ terms: { doc_version: ["a\u001fh1"] } }],
          },
        },
      },
    ]);
    const stored = (docId: string, contentHash: string) => storedChunk(chunk({ docId, contentHash })) as unknown as Record<string, unknown>;
    const query = (bodies[0] as { query: QueryClause }).query;
    expect(evaluate(query, stored("a", "h1"))).toBe(false);
    expect(evaluate(query, stored("a", "h0"))).toBe(true);
    expect(evaluate(query, stored("b", "h1"))).toBe(true);
    expect(evaluate(query, stored("c", "h0"))).toBe(false);
  });

  it("has no version exclusion when every entry is removed, and batches large maps", () => {
    expect(pruneBodies(new Map([["x", null]]))).toEqual([{ query: { bool: { filter: [{ terms: { doc_id: ["x"] } }] } } }]);
    const many = new Map<string, string | null>(Array.from({ length: 12_000 }, (_, index) => [`d${index}`, "h"]));
    expect(pruneBodies(many)).toHaveLength(3);
    expect(pruneBodies(new Map())).toEqual([]);
  });
});

describe("derivedDocumentsBody", () => {
  it("pages through the registry by document id", () => {
    expect(derivedDocumentsBody(["s1", "s1", "s2"], 100, ["raptor:x"])).toEqual({
      size: 100,
      track_total_hits: false,
      _source: ["doc_id"],
      query: { bool: { filter: [{ terms: { derived_from: ["s1", "s2"] } }] } },
      sort: [{ doc_id: { order: "asc" } }],
      search_after: ["raptor:x"],
    });
  });
});
