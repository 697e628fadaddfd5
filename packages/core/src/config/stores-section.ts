/**
 * The `stores` section of the configuration: where documents are stored and how server stores
 * are reached (see `docs/configuration.md`, "Stores").
 */
import { z } from "zod";
import { type StoreIndexKind, storeBackendsHolding, storeNamesHolding } from "../stores/store-backend-packages.js";
import { integer, optionalInteger, setting } from "./setting-helpers.js";

/** Where documents are stored. */
export const storesSchema = z.object({
  /** `DATA_DIR`, default `./data`: where the embedded store keeps one SQLite database per organisation, and jobs their spooled uploads. */
  dataDir: setting("DATA_DIR", z.string().default("./data")),
  /**
   * `VECTOR_STORE`: `embedded`, a registered server backend that holds vectors (`milvus`; see
   * `storeBackendPackages`), or `none` (BM25 only on a full-text server). `auto` (default) picks
   * the first such backend whose selecting variable is set (Milvus: `VECTORDB_URI`), else the
   * embedded store.
   */
  vector: setting("VECTOR_STORE", z.enum(["auto", "embedded", ...storeNamesHolding("vector"), "none"]).default("auto")),
  /**
   * `KEYWORD_STORE`: `embedded`, or a registered server backend that holds the keyword index, by
   * name or alias: `elasticsearch`, `opensearch` (both: `search-engine` once resolved) or `milvus`
   * (Milvus's BM25 function). `auto` (default) picks the first such backend whose selecting
   * variable is set, search engines first (`FULLTEXT_URI`, then `VECTORDB_URI`), else the
   * embedded store.
   */
  keyword: setting("KEYWORD_STORE", z.enum(["auto", "embedded", ...storeNamesHolding("keyword")]).default("auto")),
  /** `STORE_TIMEOUT_MS`, default 10000: how long a call to a server store may take before the request fails with 503 (`store_unavailable`). */
  timeoutMs: setting("STORE_TIMEOUT_MS", integer(10_000, 1)),
  /**
   * `MAX_OPEN_ORGANISATIONS`, default 128: most organisation files the embedded store keeps open
   * at once (3 file descriptors each); the least recently used is closed, once no request uses
   * it, to open another.
   */
  maxOpenOrganisations: setting("MAX_OPEN_ORGANISATIONS", integer(128, 1)),
  /**
   * `READINESS_TIMEOUT_MS`, default 2000: how long each backend may take to answer a readiness
   * check (`/readyz`, and ingestion before it accepts a job) before it counts as down.
   */
  readinessTimeoutMs: setting("READINESS_TIMEOUT_MS", integer(2_000, 1)),
  /**
   * `SWEEP_INTERVAL_SECONDS`, default 600: how often a service on staged stores (Milvus,
   * Elasticsearch/OpenSearch) looks for chunk versions that failed or interrupted writes left
   * uncommitted, once `ready()` has run; 0 turns the background sweep off (`service.sweep()`
   * still runs one pass).
   */
  sweepIntervalSeconds: setting("SWEEP_INTERVAL_SECONDS", integer(600, 0)),
  /**
   * `SWEEP_GRACE_SECONDS`, default 3600: how long a chunk version must stay uncommitted before
   * the sweeper removes it; longer than any write takes, so writes in progress are never touched.
   */
  sweepGraceSeconds: setting("SWEEP_GRACE_SECONDS", integer(3_600, 0)),
  /**
   * `VECTORDB_COLLECTION`, default `docs_collection`: base name of each organisation's collections
   * (a server store adds an organisation suffix) and of the embedded store's files.
   */
  collection: setting(
    "VECTORDB_COLLECTION",
    z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "letters, digits and underscores, not starting with a digit")
      .default("docs_collection"),
  ),
  /**
   * The variables of the server backends (each registered with its `prefix` in
   * `storeBackendPackages`, for example `VECTORDB_` for Milvus), by backend name, as `loadConfig`
   * read them; core reads none of them but the one that selects a backend (`auto`). Each backend
   * parses its own with its settings schema when `storesFromConfig` resolves it. Default none.
   */
  backendVariables: z.record(z.string(), z.record(z.string(), z.string())).default({}),
  /**
   * Settings given in code to the server backends, by backend name (for example
   * `{ milvus: { uri: "http://milvus:19530" } }`), applied over their variables; default none.
   * In code, name the backend too (`vector: "milvus"`): `auto` looks at variables only.
   */
  backends: z.record(z.string(), z.record(z.string(), z.unknown())).default({}),
  vectorIndex: z
    .object({
      /**
       * `VECTOR_INDEX`: `auto` (default: an HNSW graph for organisations with `HNSW_MIN_VECTORS`
       * vectors, exact search below), `exact` (always scan every vector), or `hnsw` (a graph for
       * every organisation). Graphs are built in the background; searches are exact until the
       * graph is ready, and for filters that allow under 5 % of the vectors.
       */
      mode: setting("VECTOR_INDEX", z.enum(["auto", "exact", "hnsw"]).default("auto")),
      /** `HNSW_MIN_VECTORS`, default 20000. */
      hnswMinVectors: setting("HNSW_MIN_VECTORS", integer(20_000, 0)),
      /** `HNSW_CONNECTIVITY`, default 16: graph degree M. */
      hnswConnectivity: setting("HNSW_CONNECTIVITY", integer(16, 2)),
      /**
       * `HNSW_EXPANSION_SEARCH`: candidate list size ef at search time. Unset (default): the
       * embedded store grows it with the graph (`hnswExpansionSearchFor` of `stores/vector-index.ts`:
       * 128 up to 100,000 vectors, 128 · (N / 100,000)^α beyond), Milvus uses 128
       * (`defaultHnswExpansionSearch`).
       */
      hnswExpansionSearch: setting("HNSW_EXPANSION_SEARCH", optionalInteger(1)),
    })
    .prefault({}),
});

/** The `stores` section as parsed, before `auto` is resolved. */
export type StoresSection = z.output<typeof storesSchema>;

/**
 * The store a `VECTOR_STORE` (`kind` `vector`) or `KEYWORD_STORE` (`keyword`) choice stands for:
 * for `auto`, the first backend holding `kind` (in the order of `storeBackendsHolding`) whose
 * selecting variable is set (not empty) among its variables (`stores.backendVariables`), else
 * `embedded`. Other choices (`embedded`, `none`, a backend's name or alias) stand for themselves:
 * an alias is kept (`opensearch` tells the search-engine backend which engine it speaks to), and
 * `storesFromConfig` finds its backend with `storeBackendNamed`.
 */
export function resolveStoreChoice(kind: StoreIndexKind, choice: string, stores: StoresSection): string {
  if (choice !== "auto") return choice;
  return (
    storeBackendsHolding(kind).find(([name, location]) => Boolean(stores.backendVariables[name]?.[location.variable]))?.[0] ?? "embedded"
  );
}

/** The variables that select a server keyword store, for messages: `FULLTEXT_URI or VECTORDB_URI`. */
export function keywordStoreVariables(): string {
  return storeBackendsHolding("keyword")
    .map(([, location]) => location.variable)
    .join(" or ");
}
