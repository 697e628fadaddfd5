/**
 * The documents panel of the web page: the documents the signed-in user may read. With nothing
 * typed, the service's documents API lists them ({@link catalogueDocuments}); with words typed,
 * the panel searches: the documents holding the best chunks for them, under the same access
 * control as every search ({@link searchDocuments}). `webUiRoutes` takes another source as its
 * `listDocuments` option.
 */
import type { Principal, RagService } from "@docqa/core";
import { fileNameOf } from "./ui-answer.js";
import type { UiDocument } from "./ui-api-types.js";

/** Who asks for the list, and what they typed. */
export interface DocumentListRequest {
  orgId: string;
  principal: Principal;
  /** Words to search for; empty for the whole list (documents API only). */
  query: string;
  /** The `nextCursor` of the page before, for the whole list; absent for the first page. */
  cursor?: string | undefined;
  signal?: AbortSignal | undefined;
}

/** One page of the documents list. */
export interface UiDocumentPage {
  documents: UiDocument[];
  /** The cursor of the next page, or null on the last page (and for a search, which has one page). */
  nextCursor: string | null;
}

/** A source of the documents list: a documents API, or {@link searchDocuments}. */
export type ListDocuments = (request: DocumentListRequest) => Promise<UiDocumentPage>;

/** Documents per page of the whole list (the documents API's pages, in id order). */
export const documentsPageSize = 200;

/**
 * The file name a document id shows: its last path segment without the `#<n>` of a JSON record
 * (`ann@example.org/parking.md` → `parking.md`, `docs/a.json#3` → `a.json`).
 */
export function fileNameOfDocumentId(docId: string): string {
  return (docId.split(/[\\/]/).at(-1) ?? docId).replace(/#\d+$/, "");
}

/**
 * The documents API (`RagService.listDocuments`: what the principal may read, every document for
 * an administrator), {@link documentsPageSize} at a time, for an empty query; else
 * {@link searchDocuments}.
 */
export function catalogueDocuments(service: Pick<RagService, "search" | "listDocuments">): ListDocuments {
  const search = searchDocuments(service);
  return async (request) => {
    if (request.query.trim() !== "") return search(request);
    const page = await service.listDocuments({
      orgId: request.orgId,
      principal: request.principal,
      limit: documentsPageSize,
      cursor: request.cursor,
      signal: request.signal,
    });
    return {
      documents: page.documents.map(
        (document): UiDocument => ({
          docId: document.docId,
          title: document.title,
          fileName: fileNameOfDocumentId(document.docId),
          owner: document.ownerId === "" ? undefined : document.ownerId,
          chunks: document.chunkCount,
          updatedAt: document.updatedAt,
        }),
      ),
      nextCursor: page.nextCursor,
    };
  };
}

/** Chunks searched to collect the documents of a query. */
const searchDepth = 50;

/**
 * The documents holding the best chunks for `request.query` that the principal may read (the
 * service's search applies the ACL rules), best first, one entry per document; none for an empty
 * query.
 */
export function searchDocuments(service: Pick<RagService, "search">): ListDocuments {
  return async (request) => {
    if (request.query.trim() === "") return { documents: [], nextCursor: null };
    const { results } = await service.search({
      orgId: request.orgId,
      principal: request.principal,
      query: request.query,
      limit: searchDepth,
      signal: request.signal,
    });
    const documents = new Map<string, UiDocument>();
    for (const { chunk } of results) {
      const metadata = chunk.metadata;
      if (typeof metadata.raptor_level === "number") continue;
      const docId = chunk.docId;
      const known = documents.get(docId);
      if (known) {
        known.chunks++;
        continue;
      }
      documents.set(docId, {
        docId,
        title: chunk.title,
        fileName: fileNameOf(metadata, chunk.title),
        owner: chunk.ownerId === "" ? undefined : chunk.ownerId,
        chunks: 1,
      });
    }
    return { documents: [...documents.values()], nextCursor: null };
  };
}
