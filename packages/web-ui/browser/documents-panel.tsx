/**
 * Documents: the documents the signed-in user may read, a page at a time ("Show more documents"
 * follows the documents API's cursor), or, with words typed, the documents whose chunks best match
 * them. Either way, access control is the service's: a document the user may not read is never
 * listed.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { UiDocumentList } from "../src/ui-api-types.ts";
import { type ApiClient, messageOf } from "./api-client.ts";

export function DocumentsPanel({ api, visible }: { api: ApiClient; visible: boolean }) {
  const [query, setQuery] = useState("");
  const [list, setList] = useState<UiDocumentList | undefined>();
  const [searched, setSearched] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();
  // Only the latest request's answer is shown: the catalogue asked for on opening must not
  // replace a search typed before it arrived.
  const latest = useRef(0);

  const load = async (words: string) => {
    const request = ++latest.current;
    setError(undefined);
    try {
      const documents = await api.documents(words);
      if (request !== latest.current) return;
      setList(documents);
      setSearched(words);
    } catch (failure) {
      if (request === latest.current) setError(messageOf(failure));
    }
  };
  // The next page of the whole list, appended to the rows shown.
  const more = async () => {
    const cursor = list?.nextCursor;
    if (!list || !cursor) return;
    const request = ++latest.current;
    setError(undefined);
    try {
      const next = await api.documents("", cursor);
      if (request !== latest.current) return;
      setList({ ...next, documents: [...list.documents, ...next.documents] });
    } catch (failure) {
      if (request === latest.current) setError(messageOf(failure));
    }
  };

  // The catalogue is asked for each time the panel is shown (a file uploaded meanwhile is listed);
  // a search the user typed is kept until they search again.
  useEffect(() => {
    if (visible && (searched === undefined || searched === "")) void load("");
  }, [api, visible]);

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
            {list.documents.length}
            {list.nextCursor ? "+" : ""} document(s){searched ? ` matching “${searched}”` : ""}
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
          {list.nextCursor && (
            <button type="button" class="secondary" data-testid="documents-more" onClick={() => void more()}>
              Show more documents
            </button>
          )}
        </>
      )}
    </div>
  );
}
