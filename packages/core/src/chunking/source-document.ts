/**
 * A document ready to be chunked: its id, title, metadata and sections, from `/upsert` (one
 * section) or from a file loader (pages, heading sections, row groups, records).
 */
import { createHash } from "node:crypto";
import type { DocumentInput } from "../ingestion/document-input.js";
import type { LoadedSection } from "../ingestion/loaders/loaded-file.js";

/** A document before chunking. */
export interface SourceDocument {
  docId: string;
  title: string;
  /**
   * Document metadata. `source`, `owner_id`, `acl` and `created_at` have their spec meaning;
   * files add `filename` and `type`.
   */
  metadata: Record<string, unknown>;
  sections: LoadedSection[];
  /**
   * Identity of this document's text (SHA-256 hex): title, content and metadata, but not its
   * access (`owner_id` and `acl`, see {@link withoutAccess}). Computed from the JSON content for
   * `/upsert`, from the file bytes for files, so unchanged files are skipped before they are
   * parsed. Indexing combines it with the chunking settings, the embedding model, the owner and
   * the ACL into the stored version.
   */
  contentHash: string;
  /** Documents this one was generated from (a JSON record's file), recorded with the document. */
  derivedFrom?: readonly string[] | undefined;
}

/** SHA-256 (hex) of the given parts, serialised as JSON. */
export function hashOf(...parts: unknown[]): string {
  return createHash("sha256").update(JSON.stringify(parts)).digest("hex");
}

/** The metadata without the access keys `owner_id` and `acl`: what a content hash covers. */
export function withoutAccess(metadata: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { owner_id: _owner, acl: _acl, ...rest } = metadata;
  return rest;
}

/** A `/upsert` document as a source document with one section. */
export function sourceFromInput(docId: string, input: DocumentInput): SourceDocument {
  const content = input.content.replace(/\r\n?/g, "\n").replaceAll("\u0000", "");
  const metadata = input.metadata ?? {};
  return {
    docId,
    title: input.title,
    metadata,
    sections: [{ text: content, metadata: {} }],
    contentHash: hashOf(input.title, content, withoutAccess(metadata)),
  };
}
