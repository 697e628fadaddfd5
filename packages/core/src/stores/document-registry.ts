/**
 * The document registry: which version of each document is committed, and which derived
 * documents (RAPTOR summaries) were built from which sources. Change detection (a re-ingested,
 * unchanged document is a no-op) and the visibility of staged writes both read it.
 */

/** Read side of the registry, implemented by every store bundle's registry. */
export interface DocumentRegistry {
  /** Name used in logs and errors. */
  readonly name: string;
  /** The committed content hash of each given document that exists. */
  contentHashes(orgId: string, docIds: readonly string[]): Promise<Map<string, string>>;
  /**
   * Ids of derived documents recorded as built from any of `sourceDocIds` (their
   * `DocumentVersion.derivedFrom`).
   */
  derivedDocuments(orgId: string, sourceDocIds: readonly string[]): Promise<string[]>;
}
