/**
 * Splitting a document into chunks with LangChain's `RecursiveCharacterTextSplitter` at
 * `CHUNK_SIZE`/`CHUNK_OVERLAP` characters, and stamping every chunk with the organisation,
 * document, title, metadata, owner and ACL.
 */
import { createHash } from "node:crypto";
import { RecursiveCharacterTextSplitter } from "@langchain/textsplitters";
import { type ChunkRecord, chunkId, type DocumentVersion } from "../stores/chunk-record.js";
import type { DocumentInput } from "./document-input.js";

/** Settings of {@link chunkDocument}. */
export interface ChunkingSettings {
  /** `CHUNK_SIZE`, characters. */
  chunkSize: number;
  /** `CHUNK_OVERLAP`, characters. */
  chunkOverlap: number;
}

/** Who uploads, for default ownership. */
export interface ChunkingContext {
  orgId: string;
  /** The uploader's e-mail; the owner when `metadata.owner_id` is absent. */
  uploader: string;
}

/**
 * Chunks one document. The content is normalised first: line endings become `\n` and NUL
 * characters are removed. The content hash covers title, content, metadata, owner and the
 * chunking settings, so re-ingesting an unchanged document can be skipped.
 *
 * Ownership: `metadata.owner_id` when given, else the uploader (documented in
 * `docs/access-control.md`), so a document without an ACL stays readable by whoever uploaded it.
 */
export async function chunkDocument(
  docId: string,
  document: DocumentInput,
  settings: ChunkingSettings,
  context: ChunkingContext,
): Promise<DocumentVersion> {
  const content = document.content.replace(/\r\n?/g, "\n").replaceAll("\u0000", "");
  const metadata = document.metadata ?? {};
  const ownerId = (metadata.owner_id ?? context.uploader).trim().toLowerCase();
  const acl = metadata.acl ?? "";
  const source = metadata.source ?? "";
  const contentHash = createHash("sha256")
    .update(JSON.stringify([document.title, content, metadata, ownerId, settings.chunkSize, settings.chunkOverlap]))
    .digest("hex");
  const splitter = new RecursiveCharacterTextSplitter({ chunkSize: settings.chunkSize, chunkOverlap: settings.chunkOverlap });
  const texts = (await splitter.splitText(content)).filter((text) => text.trim() !== "");
  const chunks: ChunkRecord[] = texts.map((text, chunkIndex) => ({
    id: chunkId(docId, chunkIndex),
    docId,
    chunkIndex,
    text,
    title: document.title,
    source,
    ownerId,
    acl,
    metadata: {
      ...metadata,
      org_id: context.orgId,
      doc_id: docId,
      chunk_index: chunkIndex,
      title: document.title,
      source,
      owner_id: ownerId,
      acl,
    },
    contentHash,
  }));
  return { docId, contentHash, chunks };
}
