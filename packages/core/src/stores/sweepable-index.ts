/**
 * What a staged index offers the sweeper of uncommitted chunk versions (`sweep-uncommitted.ts`):
 * which organisations it holds, which document versions it stores for one, and the removal of
 * exact versions. A write that fails half-way, or a process killed between the *write* and the
 * *commit* of the staged protocol (decision 3), leaves chunk versions that no registry entry
 * names; readers never see them, but they take space and make `count()` overstate what is stored
 * until the same document is written again. Implemented by Milvus and Elasticsearch/OpenSearch;
 * the embedded store writes in one transaction and leaves nothing to sweep.
 */

/** One version of one document as an index stores it. */
export interface StoredVersion {
  docId: string;
  /** The version (`DocumentVersion.contentHash`). */
  contentHash: string;
  /** Number of chunks of this version in the index. */
  chunks: number;
}

/** A staged index whose stored versions can be listed and removed one by one. */
export interface SweepableIndex {
  /** Name used in logs, for example `milvus` or `opensearch`. */
  readonly name: string;
  /**
   * The organisations that have chunks in this index, as stamped in their chunks (`org_id`);
   * collections or indexes of other deployments sharing the server are never listed.
   *
   * @throws {DocqaError} `store_unavailable`.
   */
  organisations(): Promise<string[]>;
  /**
   * Every (document, version) stored for the organisation, with its chunk count, committed or
   * not; empty for an organisation without chunks.
   *
   * @throws {DocqaError} `store_unavailable`.
   */
  storedVersions(orgId: string): Promise<StoredVersion[]>;
  /**
   * Deletes the chunks of exactly these versions; other versions of the same documents (the
   * committed one, or one being written now) are untouched. Missing versions are a no-op.
   *
   * @throws {DocqaError} `store_unavailable`.
   */
  removeVersions(orgId: string, versions: readonly Pick<StoredVersion, "docId" | "contentHash">[]): Promise<void>;
}

/** Whether `index` can be swept (implements {@link SweepableIndex}). */
export function isSweepable<T>(index: T): index is T & SweepableIndex {
  const candidate = index as Partial<SweepableIndex> | undefined;
  return (
    typeof candidate?.organisations === "function" &&
    typeof candidate.storedVersions === "function" &&
    typeof candidate.removeVersions === "function"
  );
}
