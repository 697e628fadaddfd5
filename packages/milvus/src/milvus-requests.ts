/**
 * Requests shared by the Milvus chunk store and registry: the filter of a request, a filtered
 * query and a filtered delete under strong consistency, and the limits Milvus puts on them.
 */
import { ConsistencyLevelEnum } from "@zilliz/milvus2-sdk-node";
import type { FilterExpression } from "./filter-expression.js";
import { checkStatus, type MilvusConnection } from "./milvus-connection.js";

/** Largest `limit` (top-k) Milvus accepts for a search or query. */
export const maximumTopK = 16_384;

/** The `filter` and `exprValues` of a request (nothing for an empty expression). */
export function filterRequest(expression: FilterExpression): { filter?: string; exprValues?: Record<string, unknown> } {
  if (expression.expression === "") return {};
  return Object.keys(expression.values).length > 0
    ? { filter: expression.expression, exprValues: expression.values }
    : { filter: expression.expression };
}

/**
 * The rows of `collection` matching `expression` (at most `limit`, consistency level Strong),
 * with `outputFields`.
 *
 * @throws {DocqaError} `store_unavailable` (see {@link MilvusConnection.call}).
 */
export async function queryRows(
  connection: MilvusConnection,
  collection: string,
  expression: FilterExpression,
  outputFields: string[],
  limit: number,
  operation: string,
): Promise<Record<string, unknown>[]> {
  const response = await connection.call(operation, async (client, timeout) =>
    checkStatus(
      operation,
      await client.query({
        collection_name: collection,
        ...filterRequest(expression),
        output_fields: outputFields,
        limit,
        consistency_level: ConsistencyLevelEnum.Strong,
        timeout,
      }),
    ),
  );
  return response.data;
}

/**
 * Deletes the rows of `collection` matching `expression`.
 *
 * @throws {DocqaError} `store_unavailable` (see {@link MilvusConnection.call}).
 */
export async function deleteRows(
  connection: MilvusConnection,
  collection: string,
  expression: FilterExpression,
  operation: string,
): Promise<void> {
  await connection.call(operation, async (client, timeout) =>
    checkStatus(
      operation,
      await client.delete({
        collection_name: collection,
        filter: expression.expression,
        ...(Object.keys(expression.values).length > 0 ? { exprValues: expression.values } : {}),
        timeout,
      }),
    ),
  );
}

/** Splits `items` into lists of at most `size` items (the last may be shorter). */
export function chunksOf<T>(items: readonly T[], size: number): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < items.length; start += size) result.push(items.slice(start, start + size));
  return result;
}
