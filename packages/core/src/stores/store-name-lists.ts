/**
 * The lists of store names shown to users, rendered from the registry of store backends
 * (`storeBackendPackages`): the names `VECTOR_STORE` and `KEYWORD_STORE` accept for server
 * backends, and the variables their `auto` choice looks at, in order. In `docs/configuration.md`
 * they sit between marks, `<!-- stores:vector -->…<!-- /stores -->` (see `text/marked-lists.ts`),
 * which the unit test `store-name-lists.test.ts` checks and rewrites with `vitest -u`.
 */
import { joinList, type ListConjunction, rewriteMarkedLists } from "../text/marked-lists.js";
import { type StoreIndexKind, storeBackendsHolding, storeNamesHolding } from "./store-backend-packages.js";

/**
 * How a list of store names is written:
 * - `vector`, `keyword`: the names (and aliases) of the server backends holding that index, as code;
 * - `vector-variables`, `keyword-variables`: the variables `auto` looks at, in its order, each with its backend.
 */
export type StoreNameListStyle = StoreIndexKind | `${StoreIndexKind}-variables`;

const storeNameListStyles: readonly StoreNameListStyle[] = ["vector", "keyword", "vector-variables", "keyword-variables"];

/**
 * The registered server stores written in `style`.
 *
 * @example
 * ```ts
 * storeNameList("keyword-variables"); // "`FULLTEXT_URI` (`search-engine`), `VECTORDB_URI` (`milvus`)"
 * ```
 */
export function storeNameList(style: StoreNameListStyle, conjunction?: ListConjunction): string {
  const [kind, variables] = style.split("-") as [StoreIndexKind, string | undefined];
  const items = variables
    ? storeBackendsHolding(kind).map(([name, location]) => `\`${location.variable}\` (\`${name}\`)`)
    : storeNamesHolding(kind).map((name) => `\`${name}\``);
  return joinList(items, conjunction);
}

/**
 * `markdown` with every list marked `stores` rendered anew from the registry.
 *
 * @throws {Error} for a mark naming an unknown style.
 */
export function rewriteStoreNameLists(markdown: string): string {
  return rewriteMarkedLists(markdown, "stores", (style, conjunction) => {
    if (!storeNameListStyles.includes(style as StoreNameListStyle)) {
      throw new Error(`unknown store list style ${style} (known: ${storeNameListStyles.join(", ")})`);
    }
    return storeNameList(style as StoreNameListStyle, conjunction);
  });
}
