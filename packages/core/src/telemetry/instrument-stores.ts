/**
 * Per-engine spans and backend error events for a service's stores, added by wrapping them once
 * where the service prepares them (`prepareRuntime`), so no store implementation and no stage
 * carries tracing code. The wrappers forward every other member unchanged (including members a
 * store adds beyond the interfaces), and `this` stays the original store.
 *
 * Spans: `docqa.search.vector` and `docqa.search.keyword` (`docqa.backend`,
 * `docqa.search.top_k`, `docqa.search.results`), `docqa.store.write` (`docqa.backend`,
 * `docqa.documents`, `docqa.chunks`, `docqa.deletes`) and `docqa.store.visible` (staged stores).
 */
import type { DocumentStores } from "../stores/document-stores.js";
import type { KeywordIndex, VectorIndex } from "../stores/vector-index.js";
import { overrideMethods } from "./override-methods.js";
import type { ServiceMetrics } from "./service-metrics.js";
import { errorCodeOf, withSpan } from "./tracing.js";

/** Runs `call` in span `name`, reporting a failure as a backend error event of `backend`/`operation`. */
function observed<T>(
  metrics: ServiceMetrics,
  name: string,
  backend: string,
  operation: string,
  attributes: Record<string, string | number>,
  call: () => Promise<T>,
  resultAttributes: (result: T) => Record<string, number>,
): Promise<T> {
  return withSpan(name, { "docqa.backend": backend, ...attributes }, async (span) => {
    try {
      const result = await call();
      span.setAttributes(resultAttributes(result));
      return result;
    } catch (error) {
      metrics.backendError?.({ backend, operation, code: errorCodeOf(error) });
      throw error;
    }
  });
}

function instrumentVector(index: VectorIndex, metrics: ServiceMetrics): VectorIndex {
  return overrideMethods(index, {
    searchByVector: (orgId: string, vector: Float32Array, model: Parameters<VectorIndex["searchByVector"]>[2], options) =>
      observed(
        metrics,
        "docqa.search.vector",
        index.name,
        "search_vector",
        { "docqa.search.top_k": options.topK, "docqa.embedding.dimension": vector.length },
        () => index.searchByVector(orgId, vector, model, options),
        (results) => ({ "docqa.search.results": results.length }),
      ),
  } satisfies Partial<VectorIndex>);
}

function instrumentKeyword(index: KeywordIndex, metrics: ServiceMetrics): KeywordIndex {
  return overrideMethods(index, {
    searchByText: (orgId: string, query: string, options) =>
      observed(
        metrics,
        "docqa.search.keyword",
        index.name,
        "search_text",
        { "docqa.search.top_k": options.topK, "docqa.query.chars": query.length },
        () => index.searchByText(orgId, query, options),
        (results) => ({ "docqa.search.results": results.length }),
      ),
  } satisfies Partial<KeywordIndex>);
}

/**
 * The stores with spans around every search, write and visibility check, and `backendError`
 * events for their failures (the error is rethrown unchanged).
 */
export function instrumentDocumentStores(stores: DocumentStores, metrics: ServiceMetrics): DocumentStores {
  const vector = stores.vector ? instrumentVector(stores.vector, metrics) : undefined;
  const keyword = instrumentKeyword(stores.keyword, metrics);
  return overrideMethods(stores, {
    vector,
    keyword,
    write: (orgId: string, documents, options) =>
      observed(
        metrics,
        "docqa.store.write",
        stores.description,
        "write",
        {
          "docqa.documents": documents.length,
          "docqa.chunks": documents.reduce((sum, document) => sum + document.chunks.length, 0),
          "docqa.deletes": options?.deleteDocIds?.length ?? 0,
        },
        () => stores.write(orgId, documents, options),
        () => ({}),
      ),
    visible: (orgId: string, results) =>
      observed(
        metrics,
        "docqa.store.visible",
        stores.description,
        "visible",
        { "docqa.search.results": results.length },
        () => stores.visible(orgId, results),
        (visible) => ({ "docqa.visible": visible.length }),
      ),
  } satisfies Partial<DocumentStores>);
}
