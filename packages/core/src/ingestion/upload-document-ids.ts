/**
 * Document ids of uploaded files (set B's `POST /api/ingest` and the web page's upload): each
 * owner has their own name space, `<owner>/<file name>`, so Alice's `parking.md` and Bob's
 * `parking.md` are two documents, an owner who uploads a file name again replaces their own
 * document, and an upload can never meet another user's document (nor learn of it from an error).
 * The file name stays the document's `filename` metadata, which is what pages and answers show.
 *
 * Uploads of earlier releases were stored under the bare file name; such a document is replaced
 * (deleted in the same write) when its owner uploads the file again (`FileSource.replacesDocId`).
 */
import { normalizePrincipal, type Principal } from "../acl/principal.js";
import { requestedOwnerOf } from "./index-documents.js";
import type { FileSource } from "./ingest-file.js";

/**
 * The id of the file `fileName` uploaded for `owner`: `<owner>/<fileName>`, the owner normalised
 * as principals are (`normalizePrincipal`: trimmed, lower-cased), the file name as received
 * (its base name, `receiveUpload`).
 *
 * @example
 * ```ts
 * uploadDocumentId("Alice@Acme.example", "parking.md"); // "alice@acme.example/parking.md"
 * ```
 */
export function uploadDocumentId(owner: string, fileName: string): string {
  return `${normalizePrincipal({ userName: owner, roles: [], groups: [] }).userName}/${fileName}`;
}

/** An uploaded file: its name as received and where its bytes are. */
export interface UploadedFile {
  name: string;
  path: string;
}

/**
 * The files of an upload as an ingestion job takes them: each with its {@link uploadDocumentId}
 * under the owner of the upload (`metadata.owner_id` when given, which only administrators may
 * set to somebody else, else the uploader), and the bare file name an earlier release would have
 * used as the id to replace when it is the same owner's (`replacesDocId`).
 */
export function uploadedFileSources(
  files: readonly UploadedFile[],
  uploader: Pick<Principal, "userName">,
  metadata: Readonly<Record<string, unknown>>,
): FileSource[] {
  const owner = requestedOwnerOf(metadata) ?? uploader.userName;
  return files.map((file) => ({ name: file.name, path: file.path, docId: uploadDocumentId(owner, file.name), replacesDocId: file.name }));
}
