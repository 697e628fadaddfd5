/**
 * Milvus boolean filter expressions for docqa's chunk filters, registry look-ups and deletes.
 *
 * No user value is ever spliced into an expression as raw text. Every document id, ACL token and
 * metadata value reaches Milvus in one of two ways:
 *
 * - `template` (Milvus 2.5+ "filter templating"): the expression holds a placeholder `{p0}` and
 *   the value travels separately in `exprValues` (`expr_template_values` on the wire), so the
 *   server never parses it as expression text.
 * - `literal` (servers without templating, such as milvus-lite): the value is written as a
 *   double-quoted string literal by {@link milvusStringLiteral}, which escapes the only characters
 *   that could end or corrupt a literal in Milvus's grammar (`"`, `\`, carriage return, line
 *   feed), or as a number or boolean literal produced from a JavaScript number or boolean.
 *
 * Metadata keys cannot be parameters in Milvus (`metadata["key"]` is part of the expression), so
 * a key must match `@docqa/core`'s `metadataKeyPattern` (checked by the service for every store,
 * and again here); it is then also written as an escaped literal.
 *
 * Grammar reference: Milvus `internal/parser/planparserv2/Plan.g4` (`StringLiteral`,
 * `DoubleSChar`, `TemplateVariable`, `JSONIdentifier`).
 */
import { DocqaError, normalizeAccessName, type Principal } from "@docqa/core";
import {
  assertMetadataKey,
  type ChunkFilter,
  type DocumentQuery,
  type MetadataCondition,
  principalAccessTokens,
  principalDenyToken,
  summaryDocumentPrefix,
} from "@docqa/core/stores";

/** How user values reach Milvus; see the module documentation. */
export type FilterValueMode = "template" | "literal";

/** A value of a template parameter. */
export type ExpressionValue = string | number | boolean | readonly string[];

/** A filter expression with the values of its template parameters. */
export interface FilterExpression {
  /** The boolean expression; `""` when nothing is filtered. */
  expression: string;
  /** Values of the `{name}` placeholders (template mode); empty in literal mode. */
  values: Record<string, ExpressionValue>;
}

/** Builds one expression, handing out placeholders or literals for user values. */
export class ExpressionBuilder {
  private readonly parameters: Record<string, ExpressionValue> = {};
  private count = 0;

  /**
   * @param mode - how values are written.
   * @param prefix - placeholder name prefix, default `p`; builders whose expressions are combined
   *   need different prefixes.
   */
  constructor(
    readonly mode: FilterValueMode,
    private readonly prefix = "p",
  ) {}

  /**
   * The expression text standing for one scalar value: `{p<n>}` in template mode, a literal in
   * literal mode.
   *
   * @throws {DocqaError} `invalid_request` for a non-finite number or an integer beyond
   *   ±(2^53 − 1), which neither mode can carry exactly.
   */
  value(value: string | number | boolean): string {
    if (typeof value === "number") assertUsableNumber(value);
    if (this.mode === "literal") return literalOf(value);
    return this.placeholder(value);
  }

  /** The expression text standing for a non-empty list of strings (`[...]` or `{p<n>}`). */
  list(values: readonly string[]): string {
    if (values.length === 0) throw new TypeError("an expression list must not be empty");
    if (this.mode === "literal") return `[${values.map(milvusStringLiteral).join(", ")}]`;
    return this.placeholder([...values]);
  }

  /** The finished expression with the values of its placeholders. */
  build(expression: string): FilterExpression {
    return { expression, values: { ...this.parameters } };
  }

  private placeholder(value: ExpressionValue): string {
    const name = `${this.prefix}${this.count++}`;
    this.parameters[name] = value;
    return `{${name}}`;
  }
}

/**
 * A Milvus double-quoted string literal whose value is exactly `value`. Escapes `\` as `\\`, `"`
 * as `\"`, line feed as `\n` and carriage return as `\r` (the characters `DoubleSChar` excludes);
 * every other character is written as is. Lone UTF-16 surrogates become U+FFFD, as they would on
 * the wire.
 *
 * @example
 * ```ts
 * milvusStringLiteral('x" or 1==1 or "'); // "\"x\\\" or 1==1 or \\\"\""
 * ```
 */
export function milvusStringLiteral(value: string): string {
  let literal = '"';
  for (const character of wellFormed(value)) {
    switch (character) {
      case "\\":
        literal += "\\\\";
        break;
      case '"':
        literal += '\\"';
        break;
      case "\n":
        literal += "\\n";
        break;
      case "\r":
        literal += "\\r";
        break;
      default:
        literal += character;
    }
  }
  return `${literal}"`;
}

/**
 * A Milvus number literal: integers in decimal, other numbers in JavaScript's shortest
 * round-trip form (`0.1`, `1.5e-7`), which Milvus's `FloatingConstant` accepts. Negative numbers
 * start with `-`, parsed by Milvus as unary minus.
 *
 * @throws {DocqaError} `invalid_request` for NaN, ±Infinity and integers beyond ±(2^53 − 1).
 */
export function milvusNumberLiteral(value: number): string {
  assertUsableNumber(value);
  return String(value);
}

/**
 * The Milvus path of a metadata key: `metadata["key"]`.
 *
 * @throws {DocqaError} `invalid_request` when `key` does not match `@docqa/core`'s `metadataKeyPattern`.
 */
export function metadataKeyPath(key: string): string {
  assertMetadataKey(key, "milvus");
  return `metadata[${milvusStringLiteral(key)}]`;
}

/** Options of {@link chunkFilterExpression}. */
export interface ChunkFilterExpressionOptions {
  /** Keep only chunks stored with an embedding (`has_embedding == true`); for vector searches. */
  withEmbedding?: boolean;
}

/**
 * The Milvus expression for a {@link ChunkFilter} over a chunk collection, or `undefined` when the
 * filter can match nothing (an empty `docIds` list or an `in` condition without values).
 *
 * - `principal`: `array_contains_any(grants, <principal tokens>)`, and, when the user name is not
 *   empty, `not (array_contains(denied, <user>))` (see `@docqa/core`'s `access-tokens`).
 * - `docIds`: `doc_id in <ids>`.
 * - metadata `eq`, `gte`, `lte`: `metadata["key"] == / >= / <= <value>`; `in`: equalities joined
 *   by `or` (milvus-lite refuses `in` on JSON keys). Milvus compares JSON values only with values
 *   of the same type, like `matchesChunkFilter`; callers still post-check results with it.
 *
 * @throws {DocqaError} `invalid_request` for an unsupported metadata key or number.
 */
export function chunkFilterExpression(
  filter: ChunkFilter,
  mode: FilterValueMode,
  options: ChunkFilterExpressionOptions = {},
): FilterExpression | undefined {
  const builder = new ExpressionBuilder(mode);
  const parts: string[] = [];
  if (options.withEmbedding) parts.push("has_embedding == true");
  if (filter.docIds) {
    if (filter.docIds.length === 0) return undefined;
    parts.push(`doc_id in ${builder.list(unique(filter.docIds))}`);
  }
  if (filter.principal) parts.push(...accessExpressions(filter.principal, builder));
  for (const condition of filter.metadata ?? []) {
    const part = conditionExpression(condition, builder);
    if (part === undefined) return undefined;
    parts.push(part);
  }
  return builder.build(conjunction(parts));
}

/**
 * The ACL pre-filter of `principal` over a collection with `grants` and `denied` token arrays:
 * `array_contains_any(grants, <principal tokens>)`, and, when the user name is not empty,
 * `not (array_contains(denied, <user>))`.
 */
function accessExpressions(principal: Principal, builder: ExpressionBuilder): string[] {
  const parts = [`array_contains_any(grants, ${builder.list(principalAccessTokens(principal))})`];
  const user = principalDenyToken(principal);
  if (user !== "") parts.push(`not (array_contains(denied, ${builder.value(user)}))`);
  return parts;
}

/**
 * The expression of a documents listing over a registry collection (`DocumentQuery` without its
 * paging): summary nodes excluded by an id range (`doc_id < "raptor:" or doc_id >= "raptor;"`,
 * which needs no `like` pattern), `source`, `type` and `owner_id` equalities, and the ACL
 * pre-filter of the principal. Uses placeholders `{l<n>}`, so it combines with
 * {@link afterPrimaryKey}.
 */
export function documentListExpression(query: Omit<DocumentQuery, "limit" | "after">, mode: FilterValueMode): FilterExpression {
  const builder = new ExpressionBuilder(mode, "l");
  const prefix = summaryDocumentPrefix;
  const pastPrefix = `${prefix.slice(0, -1)}${String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1)}`;
  const parts = [`doc_id < ${builder.value(prefix)} or doc_id >= ${builder.value(pastPrefix)}`];
  if (query.source !== undefined) parts.push(`source == ${builder.value(query.source)}`);
  if (query.type !== undefined) parts.push(`type == ${builder.value(query.type)}`);
  if (query.ownerId !== undefined) parts.push(`owner_id == ${builder.value(normalizeAccessName(query.ownerId))}`);
  if (query.principal) parts.push(...accessExpressions(query.principal, builder));
  return builder.build(conjunction(parts));
}

/** The expression of one metadata condition, or `undefined` when it matches nothing. */
function conditionExpression(condition: MetadataCondition, builder: ExpressionBuilder): string | undefined {
  const path = metadataKeyPath(condition.key);
  switch (condition.op) {
    case "eq":
      return `${path} == ${builder.value(condition.value)}`;
    case "in": {
      const values = unique(condition.values);
      if (values.length === 0) return undefined;
      return values.map((value) => `${path} == ${builder.value(value)}`).join(" or ");
    }
    case "gte":
      return `${path} >= ${builder.value(condition.value)}`;
    case "lte":
      return `${path} <= ${builder.value(condition.value)}`;
  }
}

/** `doc_id in <ids>` over a non-empty list. */
export function documentIdsExpression(docIds: readonly string[], mode: FilterValueMode): FilterExpression {
  const builder = new ExpressionBuilder(mode);
  return builder.build(`doc_id in ${builder.list(unique(docIds))}`);
}

/** `doc_id == <id> and content_hash == <hash>`: the chunks of one version of one document. */
export function documentVersionExpression(docId: string, contentHash: string, mode: FilterValueMode): FilterExpression {
  const builder = new ExpressionBuilder(mode);
  return builder.build(`doc_id == ${builder.value(docId)} and content_hash == ${builder.value(contentHash)}`);
}

/** `array_contains_any(derived_from, <ids>)` over a non-empty list (registry collection). */
export function derivedFromExpression(sourceDocIds: readonly string[], mode: FilterValueMode): FilterExpression {
  const builder = new ExpressionBuilder(mode);
  return builder.build(`array_contains_any(derived_from, ${builder.list(unique(sourceDocIds))})`);
}

/**
 * The delete expression of `StagedIndex.prune` for some entries of `keep`: for a document kept at
 * version `h`, `(doc_id == <id> and content_hash != <h>)`; for `null`, all of its chunks.
 */
export function pruneExpression(keep: readonly (readonly [string, string | null])[], mode: FilterValueMode): FilterExpression {
  if (keep.length === 0) throw new TypeError("pruneExpression needs at least one document");
  const builder = new ExpressionBuilder(mode);
  const parts: string[] = [];
  const removed = keep.filter(([, hash]) => hash === null).map(([docId]) => docId);
  if (removed.length > 0) parts.push(`doc_id in ${builder.list(unique(removed))}`);
  for (const [docId, hash] of keep) {
    if (hash !== null) parts.push(`(doc_id == ${builder.value(docId)} and content_hash != ${builder.value(hash)})`);
  }
  return builder.build(parts.join(" or "));
}

/**
 * `base` restricted to primary keys after `after`, for paging through query results in primary
 * key order (Milvus returns query results with a limit sorted by primary key).
 */
export function afterPrimaryKey(base: FilterExpression, primaryKey: string, after: string, mode: FilterValueMode): FilterExpression {
  const builder = new ExpressionBuilder(mode, "after");
  const bound = `${primaryKey} > ${builder.value(after)}`;
  const { values } = builder.build(bound);
  return { expression: base.expression === "" ? bound : `(${base.expression}) and ${bound}`, values: { ...base.values, ...values } };
}

/** `base` restricted to chunks whose `chunk_id` is one of `chunkIds` (a non-empty list); placeholders `{ids<n>}`. */
export function withChunkIds(base: FilterExpression, chunkIds: readonly string[], mode: FilterValueMode): FilterExpression {
  const builder = new ExpressionBuilder(mode, "ids");
  const restriction = `chunk_id in ${builder.list(unique(chunkIds))}`;
  const { values } = builder.build(restriction);
  return {
    expression: base.expression === "" ? restriction : `(${base.expression}) and ${restriction}`,
    values: { ...base.values, ...values },
  };
}

/** Joins expressions with `and`, parenthesising each; `""` for none. */
export function conjunction(parts: readonly string[]): string {
  if (parts.length === 1) return parts[0] as string;
  return parts.map((part) => `(${part})`).join(" and ");
}

/** `value` with lone UTF-16 surrogates replaced by U+FFFD (`String.prototype.toWellFormed`, ES2024). */
function wellFormed(value: string): string {
  return value.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD");
}

function literalOf(value: string | number | boolean): string {
  if (typeof value === "string") return milvusStringLiteral(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  return milvusNumberLiteral(value);
}

function assertUsableNumber(value: number): void {
  if (!Number.isFinite(value) || (Number.isInteger(value) && !Number.isSafeInteger(value))) {
    throw new DocqaError("invalid_request", `the filter value ${value} is not a finite number within ±(2^53 − 1)`, {
      component: "milvus",
    });
  }
}

function unique<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}
