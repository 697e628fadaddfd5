/**
 * The lifecycle of the per-organisation indexes: each index is created on first write with its
 * definition and its alias (`index-definitions.ts`, `index-names.ts`), never auto-created by a
 * bulk request, and remembered once it exists; an index deleted behind docqa's back is forgotten
 * so that the next write creates it again.
 */
import { DocqaError, type Logger } from "@docqa/core";
import { describeErrorBody, encodePathSegment, errorType, type SearchEngineClient } from "./search-engine-client.js";

/** The indexes of one store known to exist, and how to create them. */
export interface IndexLifecycle {
  /**
   * Creates `index` with `definition` (and its alias) unless it exists; remembers success.
   * Concurrent calls for one alias share one request.
   *
   * @throws {DocqaError} `store_unavailable` when the engine refuses, for example because an index
   *   named like the alias exists that docqa did not create.
   */
  ensure(search: SearchEngineClient, index: string, alias: string, definition: Record<string, unknown>): Promise<void>;
  /** Whether `alias` exists (cached once known). */
  exists(search: SearchEngineClient, alias: string): Promise<boolean>;
  /** Forgets `alias`, so that the next {@link ensure} creates it again. */
  forget(alias: string): void;
  /** Forgets every index. */
  clear(): void;
}

/** Creates the index lifecycle of one store; nothing is known to exist yet. */
export function createIndexLifecycle(logger: Logger): IndexLifecycle {
  const existing = new Map<string, Promise<void>>();
  return {
    ensure(search, index, alias, definition) {
      let pending = existing.get(alias);
      if (!pending) {
        pending = (async () => {
          const response = await search.request(
            { method: "PUT", path: `/${encodePathSegment(index)}`, body: definition },
            { allowStatus: [400] },
          );
          if (response.statusCode < 300) {
            logger.info("created index", { component: search.engine, index, alias });
            return;
          }
          const type = errorType(response.body);
          if (type === "resource_already_exists_exception") return;
          const hint =
            type === "invalid_alias_name_exception" || type === "invalid_index_name_exception"
              ? `: an index named ${alias} exists that docqa did not create; delete it or choose another FULLTEXT_INDEX`
              : "";
          throw new DocqaError(
            "store_unavailable",
            `creating index ${index} failed: ${describeErrorBody(response.body) ?? "HTTP 400"}${hint}`,
            {
              component: search.engine,
            },
          );
        })();
        existing.set(alias, pending);
        pending.catch(() => existing.delete(alias));
      }
      return pending;
    },

    async exists(search, alias) {
      if (existing.has(alias)) return true;
      const response = await search.request({ method: "HEAD", path: `/${encodePathSegment(alias)}` }, { allowStatus: [404] });
      return response.statusCode < 300;
    },

    forget(alias) {
      existing.delete(alias);
    },

    clear() {
      existing.clear();
    },
  };
}
