/**
 * RAPTOR (Sarthi et al., 2024, "RAPTOR: Recursive Abstractive Processing for Tree-Organized
 * Retrieval"): cluster the chunks of a set of documents, summarise each cluster, embed the
 * summaries and index them as extra retrievable nodes, then cluster and summarise the summaries,
 * up to `RAPTOR_MAX_LEVELS` levels.
 *
 * docqa's choices, documented in `docs/ingestion.md`:
 * - **Document set**: the documents written together (one `/upsert` request, or one file, whose
 *   JSON records are documents of their own). CSV row groups are not summarised: an extractive
 *   summary of table rows would only repeat them.
 * - **Access**: the set is first partitioned by effective access (owner and ACL; every ACL that
 *   grants `user:_all_` without a deny entry counts as public), and clusters never cross
 *   partitions. A summary therefore has exactly its children's access rule: only principals
 *   allowed on every child may read it, so a summary never reveals text a user may not read.
 * - **Clustering**: bisecting k-means on chunk embeddings (or hashed TF-IDF vectors without a
 *   model), clusters of at most `RAPTOR_CLUSTER_SIZE`; the paper's UMAP + Gaussian mixture is
 *   replaced by this cheaper hard clustering.
 * - **Storage**: the summaries of one partition form a derived document `raptor:<hash>` whose
 *   `derivedFrom` lists its source documents; re-writing or deleting any source deletes it.
 * - **Citations**: a summary's metadata names its source documents (`raptor_documents`) and
 *   child chunks (`raptor_children`).
 */
import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import { parseAccessList } from "../acl/access-list.js";
import { hashOf } from "../chunking/source-document.js";
import { type ChunkRecord, chunkId, type DocumentVersion, indexedText } from "../stores/chunk-record.js";
import { summaryDocumentPrefix } from "../stores/document-registry.js";
import type { Analyzer } from "../text/analyzer.js";
import { clusterVectors, normalize } from "./cluster-vectors.js";
import type { Summarizer } from "./summarizer.js";
import { termVectors } from "./term-vectors.js";

/** Settings of {@link buildRaptorNodes}. */
export interface RaptorSettings {
  /** `RAPTOR_MAX_LEVELS`: summary levels above the chunks; default 3. */
  maxLevels: number;
  /** `RAPTOR_CLUSTER_SIZE`: largest cluster; default 8. */
  clusterSize: number;
}

/** What {@link buildRaptorNodes} works with. */
export interface RaptorDependencies {
  summarizer: Summarizer;
  analyzer: Analyzer;
  /** Embeds summaries; absent in BM25-only mode (summaries are then found by BM25 alone). */
  embeddings?: EmbeddingsInterface | undefined;
  signal?: AbortSignal | undefined;
}

/** The prefix of derived RAPTOR document ids (reserved: `/upsert` refuses it, listings skip it). */
export const raptorDocumentPrefix = summaryDocumentPrefix;

/** Whether a chunk is a RAPTOR summary node (it carries `raptor_level` in its metadata). */
export function isSummaryChunk(chunk: Pick<ChunkRecord, "metadata">): boolean {
  return typeof chunk.metadata.raptor_level === "number";
}

interface TreeNode {
  chunkId: string;
  text: string;
  vector: Float32Array;
  documents: Map<string, string>;
}

/**
 * Builds the summary nodes of a document set: one derived {@link DocumentVersion} per access
 * partition that has at least three chunks. Chunks must carry embeddings when `embeddings` is
 * given.
 */
export async function buildRaptorNodes(
  orgId: string,
  documents: readonly DocumentVersion[],
  settings: RaptorSettings,
  dependencies: RaptorDependencies,
): Promise<DocumentVersion[]> {
  const partitions = new Map<string, { ownerId: string; acl: string; chunks: ChunkRecord[] }>();
  for (const document of documents) {
    for (const chunk of document.chunks) {
      // Row groups of a table are not prose; an extractive "summary" of rows would only repeat them.
      if (chunk.metadata.type === "csv") continue;
      const access = parseAccessList(chunk.acl);
      const isPublic = access.everyone && access.denied.size === 0;
      const key = isPublic ? "public" : `${chunk.ownerId}\u0000${chunk.acl.toLowerCase()}`;
      let partition = partitions.get(key);
      if (!partition)
        partitions.set(
          key,
          (partition = { ownerId: isPublic ? "" : chunk.ownerId, acl: isPublic ? "|user:_all_|" : chunk.acl, chunks: [] }),
        );
      partition.chunks.push(chunk);
    }
  }
  const derived: DocumentVersion[] = [];
  for (const [key, partition] of partitions) {
    if (partition.chunks.length < 3) continue;
    const sourceIds = [...new Set(partition.chunks.map((chunk) => chunk.docId))].sort();
    const docId = `${raptorDocumentPrefix}${hashOf(orgId, key, sourceIds).slice(0, 24)}`;
    const contentHash = hashOf(
      partition.chunks.map((chunk) => chunk.contentHash),
      settings,
      dependencies.summarizer.name,
    );
    const chunks = await summarisePartition(docId, contentHash, partition, settings, dependencies, orgId);
    if (chunks.length > 0) derived.push({ docId, contentHash, chunks, derivedFrom: sourceIds });
  }
  return derived;
}

async function summarisePartition(
  docId: string,
  contentHash: string,
  partition: { ownerId: string; acl: string; chunks: ChunkRecord[] },
  settings: RaptorSettings,
  dependencies: RaptorDependencies,
  orgId: string,
): Promise<ChunkRecord[]> {
  const useEmbeddings = dependencies.embeddings !== undefined && partition.chunks.every((chunk) => chunk.embedding !== undefined);
  const leafVectors = useEmbeddings
    ? partition.chunks.map((chunk) => normalize(Float32Array.from(chunk.embedding as Float32Array)))
    : termVectors(
        partition.chunks.map((chunk) => indexedText(chunk)),
        dependencies.analyzer,
      );
  let nodes: TreeNode[] = partition.chunks.map((chunk, index) => ({
    chunkId: chunk.id,
    text: chunk.text,
    vector: leafVectors[index] as Float32Array,
    documents: new Map([[chunk.docId, chunk.title]]),
  }));
  const summaries: ChunkRecord[] = [];
  for (let level = 1; level <= settings.maxLevels && nodes.length >= 3; level++) {
    const clusters = clusterVectors(
      nodes.map((node) => node.vector),
      { maximumSize: settings.clusterSize, seed: level },
    ).filter((cluster) => cluster.length >= 2);
    if (clusters.length === 0) break;
    const texts: string[] = [];
    for (const cluster of clusters) {
      dependencies.signal?.throwIfAborted();
      texts.push(
        await dependencies.summarizer.summarize(
          cluster.map((index) => (nodes[index] as TreeNode).text),
          dependencies.signal,
        ),
      );
    }
    const vectors = useEmbeddings
      ? (await (dependencies.embeddings as EmbeddingsInterface).embedDocuments(texts)).map((vector) => normalize(Float32Array.from(vector)))
      : termVectors(texts, dependencies.analyzer);
    const next: TreeNode[] = [];
    clusters.forEach((cluster, clusterIndex) => {
      const members = cluster.map((index) => nodes[index] as TreeNode);
      const documents = new Map<string, string>();
      for (const member of members) for (const [id, title] of member.documents) documents.set(id, title);
      const chunkIndex = summaries.length;
      const id = chunkId(docId, chunkIndex);
      const titles = [...new Set(documents.values())];
      const title = `Summary of ${titles.slice(0, 3).join("; ")}${titles.length > 3 ? ` and ${titles.length - 3} more` : ""}`;
      const text = texts[clusterIndex] as string;
      summaries.push({
        id,
        docId,
        chunkIndex,
        text,
        title,
        source: "raptor",
        ownerId: partition.ownerId,
        acl: partition.acl,
        metadata: {
          type: "summary",
          org_id: orgId,
          doc_id: docId,
          chunk_index: chunkIndex,
          title,
          source: "raptor",
          owner_id: partition.ownerId,
          acl: partition.acl,
          raptor_level: level,
          raptor_children: members.map((member) => member.chunkId),
          raptor_documents: [...documents].map(([id, documentTitle]) => ({ doc_id: id, title: documentTitle })),
          summarizer: dependencies.summarizer.name,
        },
        contentHash,
        embedding: useEmbeddings ? (vectors[clusterIndex] as Float32Array) : undefined,
      });
      next.push({ chunkId: id, text, vector: vectors[clusterIndex] as Float32Array, documents });
    });
    nodes = next;
  }
  return summaries;
}
