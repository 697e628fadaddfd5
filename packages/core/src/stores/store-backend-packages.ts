/**
 * The server store backends by name: the one line that registers a backend package (its
 * package, the variable that selects it, the indexes it can hold, other names it answers to).
 * The names `VECTOR_STORE` and `KEYWORD_STORE` accept, their `auto` choice and the lists of names
 * in `docs/configuration.md` follow from this list; the backend itself (its settings and factory)
 * is its package's `storeBackend` export, loaded on demand (`loadStoreBackend`).
 */

/** An index a store holds: dense vectors, or the BM25 keyword index (with the document registry). */
export type StoreIndexKind = "vector" | "keyword";

/** Where the backend of a name is found, and what it can be selected for. */
export interface StoreBackendLocation {
  /** The package whose `storeBackend` export is the backend, for example `@docqa/milvus`. */
  package: string;
  /**
   * The variable that selects the backend: `auto` picks it when this variable is set (it must
   * have no default), and a missing package is named with it.
   */
  variable: string;
  /** The indexes the backend can hold: `VECTOR_STORE` accepts it with `vector`, `KEYWORD_STORE` with `keyword`. */
  indexes: readonly StoreIndexKind[];
  /** Other names `VECTOR_STORE` / `KEYWORD_STORE` accept for it (`elasticsearch`, `opensearch`); default none. */
  aliases?: readonly string[];
  /**
   * The prefix of the backend's variables (for example `QDRANT_`): `loadConfig` keeps every
   * variable that starts with it for the backend (`config.stores.backendVariables`), and
   * `storesFromConfig` parses them with the backend's settings schema when it resolves the
   * backend. Core reads none of them but {@link StoreBackendLocation.variable}.
   */
  prefix: string;
}

/** The server backends by name: Milvus (`VECTORDB_URI`), and Elasticsearch or OpenSearch (`FULLTEXT_URI`). */
export const storeBackendPackages: Readonly<Record<string, StoreBackendLocation>> = {
  milvus: { package: "@docqa/milvus", variable: "VECTORDB_URI", indexes: ["vector", "keyword"], prefix: "VECTORDB_" },
  "search-engine": {
    package: "@docqa/elasticsearch",
    variable: "FULLTEXT_URI",
    indexes: ["keyword"],
    aliases: ["elasticsearch", "opensearch"],
    prefix: "FULLTEXT_",
  },
};

/**
 * The backends that can hold `kind`, by name, in the order `auto` considers them: registration
 * order, except that for the keyword index a backend holding only keywords (a search engine)
 * comes before one that also holds vectors.
 */
export function storeBackendsHolding(kind: StoreIndexKind): [name: string, location: StoreBackendLocation][] {
  const holding = Object.entries(storeBackendPackages).filter(([, location]) => location.indexes.includes(kind));
  return kind === "vector" ? holding : [...holding].sort(([, left], [, right]) => left.indexes.length - right.indexes.length);
}

/** The names `VECTOR_STORE` (`vector`) or `KEYWORD_STORE` (`keyword`) accept for server backends: each backend's aliases, then its name. */
export function storeNamesHolding(kind: StoreIndexKind): string[] {
  return storeBackendsHolding(kind).flatMap(([name, location]) => [...(location.aliases ?? []), name]);
}

/** The backend name `name` stands for (itself, or the backend it is an alias of), or undefined. */
export function storeBackendNamed(name: string): string | undefined {
  if (storeBackendPackages[name]) return name;
  return Object.entries(storeBackendPackages).find(([, location]) => location.aliases?.includes(name))?.[0];
}

/**
 * The variables of `environment` that belong to each backend (those starting with its `prefix`),
 * by backend name (trimmed; empty values count as unset), as `loadConfig` keeps them.
 */
export function storeBackendVariables(environment: Readonly<Record<string, string | undefined>>): Record<string, Record<string, string>> {
  const variables: Record<string, Record<string, string>> = {};
  for (const [name, { prefix }] of Object.entries(storeBackendPackages)) {
    for (const [variable, raw] of Object.entries(environment)) {
      const value = raw?.trim();
      if (variable.startsWith(prefix) && value) (variables[name] ??= {})[variable] = value;
    }
  }
  return variables;
}
