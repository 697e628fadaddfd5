/**
 * The request bodies of searches, prunes and registry look-ups, shared by Elasticsearch and
 * OpenSearch. Every value that comes from a user (the question, user names, roles, groups,
 * document ids, metadata keys and values) is placed as a JSON value of a `match`, `term`, `terms`
 * or `range` query, which the engine compares or analyses as data. Nothing is ever spliced into
 * query-string syntax, a script or a field name, so quotes, brackets, `*`, `\`, `OR` or JSON
 * fragments cannot change the shape of a query. Metadata keys in particular are values of the
 * `meta.key` field, not field paths.
 */
import { DocqaError, normalizeAccessName, type Principal } from "@docqa/core";
import {
  type ChunkFilter,
  type DocumentQuery,
  type MetadataCondition,
  principalAccessTokens,
  principalDenyToken,
  summaryDocumentPrefix,
} from "@docqa/core/stores";
import { chunkSourceFields, documentVersionKey } from "./chunk-documents.js";

/** A query DSL clause. */
export type QueryClause = Record<string, unknown>;

/** Largest number of values put in one `terms` query (engines refuse more than 65,536 by default). */
export const maximumTermsPerQuery = 10_000;

/** Largest `size` of a search (`index.max_result_window`, 10,000 by default). */
export const maximumResultWindow = 10_000;

/** A query that matches nothing. */
export const matchNothing: QueryClause = { match_none: {} };

/** Options of {@link textSearchBody}. */
export interface TextSearchOptions {
  /** Number of results wanted; clamped to {@link maximumResultWindow}. */
  topK: number;
  filter: ChunkFilter;
  /**
   * Extra weight of title matches, on top of the title terms already scored in `content`
   * (title and text, as the embedded store scores them). 0 (default) adds nothing, so scores stay
   * plain BM25 over `content`; a positive value adds `titleBoost ×` BM25 over `title`.
   */
  titleBoost?: number | undefined;
}

/**
 * `terms` on `field` for `values`, split into several `terms` (any of which matches) when there
 * are more than {@link maximumTermsPerQuery}; no values match nothing.
 */
export function termsClause(field: string, values: readonly unknown[]): QueryClause {
  if (values.length === 0) return matchNothing;
  if (values.length <= maximumTermsPerQuery) return { terms: { [field]: [...values] } };
  const should: QueryClause[] = [];
  for (let start = 0; start < values.length; start += maximumTermsPerQuery) {
    should.push({ terms: { [field]: values.slice(start, start + maximumTermsPerQuery) } });
  }
  return { bool: { should, minimum_should_match: 1 } };
}

/**
 * The ACL pre-filter of `principal` (see `@docqa/core` `access-tokens.ts`): the chunk's `grants`
 * share a token with `principalAccessTokens(principal)`, and its `denied` list does not hold the
 * user (`principalDenyToken`: normalised; no deny check for an empty user name, as in the seven rules).
 */
export function accessClauses(principal: Principal): { filter: QueryClause[]; mustNot: QueryClause[] } {
  const user = principalDenyToken(principal);
  return {
    filter: [termsClause("grants", principalAccessTokens(principal))],
    mustNot: user === "" ? [] : [{ term: { denied: user } }],
  };
}

type Scalar = string | number | boolean;

/** The `meta.*` sub-field holding values of `value`'s type. */
function typedField(value: Scalar): string {
  return `meta.${typeof value}`;
}

function isScalar(value: unknown): value is Scalar {
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean";
}

function invalidCondition(condition: unknown, problem: string): DocqaError {
  return new DocqaError("invalid_request", `invalid metadata filter ${safeJson(condition)}: ${problem}`, { component: "search-engine" });
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value)?.slice(0, 200) ?? String(value);
  } catch {
    return String(value);
  }
}

/** The clause matching entries whose value equals `value` (same type); NaN matches nothing. */
function equalsClause(value: Scalar): QueryClause | undefined {
  if (typeof value === "number" && Number.isNaN(value)) return undefined;
  if (typeof value === "number" && !Number.isFinite(value)) return undefined; // stored numbers are finite
  return { term: { [typedField(value)]: value } };
}

function rangeClause(op: "gte" | "lte", value: string | number): QueryClause | undefined {
  if (typeof value === "string") return { range: { "meta.string": { [op]: value } } };
  if (Number.isNaN(value)) return undefined;
  if (value === Number.POSITIVE_INFINITY) return op === "lte" ? { exists: { field: "meta.number" } } : undefined;
  if (value === Number.NEGATIVE_INFINITY) return op === "gte" ? { exists: { field: "meta.number" } } : undefined;
  return { range: { "meta.number": { [op]: value } } };
}

/**
 * The filter of one metadata condition, with `matchesCondition`'s semantics: the entry of `key`
 * must hold a value of the condition's type that is equal (`eq`), one of the values (`in`), or
 * not less / not greater (`gte` / `lte`: strings by code point, numbers numerically). A missing
 * key or a value of another type does not match.
 *
 * Strings compare by Unicode code point in the engines and by UTF-16 code unit in JavaScript;
 * the orders differ only between characters U+E000–U+FFFF and characters above U+FFFF.
 *
 * @throws {DocqaError} `invalid_request` when the condition is malformed (unknown `op`, a key that
 *   is not a string, a value of a type the op does not take).
 */
export function metadataConditionClause(condition: MetadataCondition): QueryClause {
  const candidate = condition as { key?: unknown; op?: unknown; value?: unknown; values?: unknown };
  if (typeof candidate.key !== "string") throw invalidCondition(condition, "the key must be a string");
  let valueClause: QueryClause | undefined;
  switch (candidate.op) {
    case "eq":
      if (!isScalar(candidate.value)) throw invalidCondition(condition, "eq takes a string, number or boolean");
      valueClause = equalsClause(candidate.value);
      break;
    case "in": {
      if (!Array.isArray(candidate.values) || !candidate.values.every(isScalar)) {
        throw invalidCondition(condition, "in takes a list of strings, numbers or booleans");
      }
      const byField = new Map<string, Scalar[]>();
      for (const value of candidate.values as Scalar[]) {
        if (!equalsClause(value)) continue;
        const field = typedField(value);
        byField.set(field, [...(byField.get(field) ?? []), value]);
      }
      const should = [...byField].map(([field, values]) => termsClause(field, [...new Set(values)]));
      valueClause = should.length === 0 ? undefined : should.length === 1 ? should[0] : { bool: { should, minimum_should_match: 1 } };
      break;
    }
    case "gte":
    case "lte":
      if (typeof candidate.value !== "string" && typeof candidate.value !== "number") {
        throw invalidCondition(condition, `${candidate.op} takes a string or a number`);
      }
      valueClause = rangeClause(candidate.op, candidate.value);
      break;
    default:
      throw invalidCondition(condition, "op must be eq, in, gte or lte");
  }
  if (!valueClause) return matchNothing;
  return {
    nested: {
      path: "meta",
      query: { bool: { filter: [{ term: { "meta.key": candidate.key } }, valueClause] } },
    },
  };
}

/**
 * The filter and exclusion clauses of a {@link ChunkFilter}: ACL pre-filter, document ids,
 * metadata conditions. The index is per organisation, so no organisation clause is needed.
 *
 * @throws {DocqaError} `invalid_request` for a malformed metadata condition.
 */
export function chunkFilterClauses(filter: ChunkFilter): { filter: QueryClause[]; mustNot: QueryClause[] } {
  const clauses: QueryClause[] = [];
  const mustNot: QueryClause[] = [];
  if (filter.principal) {
    const access = accessClauses(filter.principal);
    clauses.push(...access.filter);
    mustNot.push(...access.mustNot);
  }
  if (filter.docIds) clauses.push(termsClause("doc_id", [...new Set(filter.docIds)]));
  for (const condition of filter.metadata ?? []) clauses.push(metadataConditionClause(condition));
  return { filter: clauses, mustNot };
}

/**
 * The `_search` body of a BM25 search: `match` of `query` on `content` (title and text, analysed
 * with `docqa_english`, scored with `docqa_bm25`), any term sufficing; the filters in filter
 * context (they do not change scores); the `topK` best, ties broken by document id and chunk
 * position so results are deterministic.
 *
 * @throws {DocqaError} `invalid_request` for a malformed metadata condition.
 */
export function textSearchBody(query: string, options: TextSearchOptions): QueryClause {
  const { filter, mustNot } = chunkFilterClauses(options.filter);
  const titleBoost = options.titleBoost ?? 0;
  const bool: QueryClause = { must: [{ match: { content: { query } } }] };
  if (titleBoost > 0) bool.should = [{ match: { title: { query, boost: titleBoost } } }];
  if (filter.length > 0) bool.filter = filter;
  if (mustNot.length > 0) bool.must_not = mustNot;
  return {
    size: Math.min(Math.max(0, Math.floor(options.topK)), maximumResultWindow),
    track_total_hits: false,
    track_scores: true,
    _source: [...chunkSourceFields],
    query: { bool },
    sort: [{ _score: { order: "desc" } }, { doc_id: { order: "asc" } }, { chunk_index: { order: "asc" } }],
  };
}

/**
 * The `_count` body of `countByText`: chunks passing the filters (in filter context, as
 * {@link textSearchBody}) that match `query` on `content` (any term, as the search matches) or
 * whose `chunk_id` is one of `include`.
 *
 * @throws {DocqaError} `invalid_request` for a malformed metadata condition.
 */
export function textCountBody(query: string, options: { filter: ChunkFilter; include?: readonly string[] | undefined }): QueryClause {
  const { filter, mustNot } = chunkFilterClauses(options.filter);
  const should: QueryClause[] = [{ match: { content: { query } } }];
  if (options.include && options.include.length > 0) should.push(termsClause("chunk_id", [...new Set(options.include)]));
  const bool: QueryClause = { should, minimum_should_match: 1 };
  if (filter.length > 0) bool.filter = filter;
  if (mustNot.length > 0) bool.must_not = mustNot;
  return { query: { bool } };
}

/** Largest number of documents one `_delete_by_query` of {@link pruneBodies} covers. */
export const pruneBatchSize = 5_000;

/**
 * The `_delete_by_query` bodies that prune: for each entry of `keep`, the document's chunks whose
 * version is not the kept one (all its chunks when the entry is `null`). One body per
 * {@link pruneBatchSize} documents: `doc_id` in the batch and `doc_version` not a kept version.
 */
export function pruneBodies(keep: ReadonlyMap<string, string | null>): QueryClause[] {
  const entries = [...keep];
  const bodies: QueryClause[] = [];
  for (let start = 0; start < entries.length; start += pruneBatchSize) {
    const batch = entries.slice(start, start + pruneBatchSize);
    const kept = batch.filter(([, hash]) => hash !== null).map(([docId, hash]) => documentVersionKey(docId, hash as string));
    const bool: QueryClause = {
      filter: [
        termsClause(
          "doc_id",
          batch.map(([docId]) => docId),
        ),
      ],
    };
    if (kept.length > 0) bool.must_not = [termsClause("doc_version", kept)];
    bodies.push({ query: { bool } });
  }
  return bodies;
}

/**
 * A page of the registry search for documents derived from `sourceDocIds`, sorted by document
 * id; pass the last `sort` value of the previous page as `after`.
 */
export function derivedDocumentsBody(sourceDocIds: readonly string[], pageSize: number, after?: readonly unknown[]): QueryClause {
  return {
    size: pageSize,
    track_total_hits: false,
    _source: ["doc_id"],
    query: { bool: { filter: [termsClause("derived_from", [...new Set(sourceDocIds)])] } },
    sort: [{ doc_id: { order: "asc" } }],
    ...(after ? { search_after: [...after] } : {}),
  };
}

/**
 * A page of the registry search of a documents listing: `source`, `type` and `owner_id` terms,
 * the principal's ACL pre-filter (as on chunks), summary nodes (`raptor:` ids) excluded, ids after
 * `query.after`, sorted by document id (Lucene compares keyword bytes, the UTF-8 order of every
 * registry); `query.limit + 1` hits, so the caller knows whether a next page exists.
 */
export function documentListBody(query: DocumentQuery, sourceFields: readonly string[]): QueryClause {
  const filter: QueryClause[] = [];
  const mustNot: QueryClause[] = [{ prefix: { doc_id: summaryDocumentPrefix } }];
  if (query.source !== undefined) filter.push({ term: { source: query.source } });
  if (query.type !== undefined) filter.push({ term: { type: query.type } });
  if (query.ownerId !== undefined) filter.push({ term: { owner_id: normalizeAccessName(query.ownerId) } });
  if (query.after !== undefined) filter.push({ range: { doc_id: { gt: query.after } } });
  if (query.principal) {
    const access = accessClauses(query.principal);
    filter.push(...access.filter);
    mustNot.push(...access.mustNot);
  }
  return {
    size: Math.min(Math.max(1, Math.floor(query.limit) + 1), maximumResultWindow),
    track_total_hits: false,
    _source: [...sourceFields],
    query: { bool: { filter, must_not: mustNot } },
    sort: [{ doc_id: { order: "asc" } }],
  };
}

/**
 * A page of the chunks of one stored version of a document (`doc_version` term), in chunk order;
 * pass the last `sort` value of the previous page as `after`.
 */
export function documentChunksBody(docId: string, contentHash: string, pageSize: number, after?: readonly unknown[]): QueryClause {
  return {
    size: Math.min(pageSize, maximumResultWindow),
    track_total_hits: false,
    _source: [...chunkSourceFields],
    query: { bool: { filter: [{ term: { doc_version: documentVersionKey(docId, contentHash) } }] } },
    sort: [{ chunk_index: { order: "asc" } }],
    ...(after ? { search_after: [...after] } : {}),
  };
}
