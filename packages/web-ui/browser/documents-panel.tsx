/**
 * Documents: the documents the signed-in user may read. With a documents API on the server the
 * whole list is shown; otherwise the panel searches, listing the documents whose chunks best
 * match the words typed. Either way, access control is the service's: a document the user may
 * not read is never listed.
 */
import { useEffect, useState } from "preact/hooks";
import type { UiDocumentList } from "../src/ui-api-types.ts";
import { type ApiClient, messageOf } from "./api-client.ts";

export function DocumentsPanel({ api }: { api: ApiClient }) {
  const [query, setQuery] = useState("");
  const [list, setList] = useState<UiDocumentList | undefined>();
  const [searched, setSearched] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();

  const load = async (words: string) => {
    setError(undefined);
    try {
      setList(await api.documents(words));
      setSearched(words);
    } catch (failure) {
      setError(messageOf(failure));
    }
  };

  useEffect(() => {
    void load("");
  }, [api]);

  return (
    <div class="documents">
      <form
        class="search"
        onSubmit={(event) => {
          event.preventDefault();
          void load(query.trim());
        }}
      >
        <input
          type="search"
          data-testid="documents-query"
          placeholder="Words to find documents by"
          value={query}
          onInput={(event) => setQuery(event.currentTarget.value)}
        />
        <button type="submit" data-testid="documents-search">
          Search
        </button>
      </form>
      {error && (
        <p class="problem" role="alert">
          {error}
        </p>
      )}
      {list?.listing === "search" && searched === "" && (
        <p class="hint">This server has no documents API: type words to list the documents you may read that contain them.</p>
      )}
      {list && searched !== undefined && (searched !== "" || list.listing === "all") && (
        <>
          <p class="meta" data-testid="documents-count">
            {list.documents.length} document(s){searched ? ` matching “${searched}”` : ""}
          </p>
          <table class="documents-table" data-testid="documents">
            <thead>
              <tr>
                <th>Title</th>
                <th>File</th>
                <th>Owner</th>
                <th>{list.listing === "all" ? "Chunks" : "Matching chunks"}</th>
              </tr>
            </thead>
            <tbody>
              {list.documents.map((document) => (
                <tr key={document.docId} data-testid="document-row" data-doc-id={document.docId}>
                  <td>{document.title}</td>
                  <td>{document.fileName}</td>
                  <td>{document.owner ?? ""}</td>
                  <td>{document.chunks}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </div>
  );
}
