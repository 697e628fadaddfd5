/**
 * Splitting a document into chunks with LangChain's `RecursiveCharacterTextSplitter` at
 * `CHUNK_SIZE`/`CHUNK_OVERLAP` characters (or the semantic splitter), section by section so that
 * a chunk never spans two pages or headings, and stamping every chunk with the organisation,
 * document, title, section metadata, owner and ACL.
 */
import { RecursiveCharacterTextSplitter } from "@langchain/textsplitters";
import { normalizeAccessList } from "../acl/access-list.js";
import { normalizeAccessName } from "../acl/principal.js";
import { type ChunkRecord, chunkId, type DocumentVersion } from "../stores/chunk-record.js";
import type { SourceDocument } from "./source-document.js";

/** Settings of {@link chunkDocument}. */
export interface ChunkingSettings {
  /** `CHUNK_SIZE`, characters. */
  chunkSize: number;
  /** `CHUNK_OVERLAP`, characters. */
  chunkOverlap: number;
  /** Splits a section's text; default the recursive character splitter. */
  split?: ((text: string) => Promise<string[]>) | undefined;
}

/** Who uploads, for default ownership. */
export interface ChunkingContext {
  orgId: string;
  /** The uploader's e-mail; the owner when `metadata.owner_id` is absent. */
  uploader: string;
  /**
   * The owner decided by the write rules (`authorizeWrite`); when given, it wins over
   * `metadata.owner_id` and the uploader, and is stamped as the chunks' `owner_id`.
   */
  ownerId?: string | undefined;
}

/**
 * Chunks one document. Chunk ids are `<docId>::<position>`, stable for a given content.
 *
 * Ownership: `context.ownerId` (the write rules' decision) when given, else `metadata.owner_id`,
 * else the uploader (see `docs/access-control.md`), so a document without an ACL stays readable
 * by whoever uploaded it. Owner and ACL are stored in `normalizeAccessName` form.
 */
export async function chunkDocument(
  document: SourceDocument,
  settings: ChunkingSettings,
  context: ChunkingContext,
): Promise<DocumentVersion> {
  const metadata = document.metadata;
  const ownerId = normalizeAccessName(String(context.ownerId ?? metadata.owner_id ?? context.uploader));
  const acl = typeof metadata.acl === "string" ? normalizeAccessList(metadata.acl) : "";
  const source = typeof metadata.source === "string" ? metadata.source : "";
  const recursive = new RecursiveCharacterTextSplitter({ chunkSize: settings.chunkSize, chunkOverlap: settings.chunkOverlap });
  const split = settings.split ?? ((text: string) => recursive.splitText(text));
  const chunks: ChunkRecord[] = [];
  for (const section of document.sections) {
    const texts = section.preChunked && section.text.length <= settings.chunkSize ? [section.text] : await split(section.text);
    for (const text of texts) {
      if (text.trim() === "") continue;
      const chunkIndex = chunks.length;
      chunks.push({
        id: chunkId(document.docId, chunkIndex),
        docId: document.docId,
        chunkIndex,
        text,
        title: document.title,
        source,
        ownerId,
        acl,
        metadata: {
          ...metadata,
          ...section.metadata,
          org_id: context.orgId,
          doc_id: document.docId,
          chunk_index: chunkIndex,
          title: document.title,
          source,
          owner_id: ownerId,
          acl,
        },
        contentHash: document.contentHash,
      });
    }
  }
  return { docId: document.docId, contentHash: document.contentHash, chunks, derivedFrom: document.derivedFrom };
}
