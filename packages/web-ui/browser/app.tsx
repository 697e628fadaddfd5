/**
 * The application shell: the sign-in screen until a token is accepted, then a header with the
 * user and four panels (Ask, Upload, Documents, Status). Panels stay mounted when hidden, so a
 * thread or an upload in progress survives switching panels.
 */
import { useEffect, useMemo, useState } from "preact/hooks";
import type { UiConfig, UiUser } from "../src/ui-api-types.ts";
import { ApiError, apiClient, messageOf } from "./api-client.ts";
import { AskPanel } from "./ask-panel.tsx";
import { DocumentsPanel } from "./documents-panel.tsx";
import { storedToken, storeToken } from "./session.ts";
import { SignIn } from "./sign-in.tsx";
import { StatusPanel } from "./status-panel.tsx";
import { UploadPanel } from "./upload-panel.tsx";

const panels = [
  { id: "ask", label: "Ask" },
  { id: "upload", label: "Upload" },
  { id: "documents", label: "Documents" },
  { id: "status", label: "Status" },
] as const;

type PanelId = (typeof panels)[number]["id"];

export function App() {
  const [config, setConfig] = useState<UiConfig | undefined>();
  const [token, setToken] = useState<string | undefined>(storedToken());
  const [user, setUser] = useState<UiUser | undefined>();
  const [panel, setPanel] = useState<PanelId>("ask");
  const [problem, setProblem] = useState<string | undefined>();
  const api = useMemo(() => apiClient(token), [token]);

  useEffect(() => {
    apiClient()
      .config()
      .then(setConfig, (error: unknown) => setProblem(messageOf(error)));
  }, []);

  useEffect(() => {
    if (!token) return;
    api.me().then(setUser, (error: unknown) => {
      if (error instanceof ApiError && error.status === 401) signOut(messageOf(error));
      else setProblem(messageOf(error));
    });
  }, [api, token]);

  const signIn = (accepted: string, who: UiUser) => {
    storeToken(accepted);
    setToken(accepted);
    setUser(who);
    setProblem(undefined);
  };
  const signOut = (reason?: string) => {
    storeToken(undefined);
    setToken(undefined);
    setUser(undefined);
    setProblem(reason);
  };

  if (!config) return <p class="loading">{problem ?? "Loading…"}</p>;
  if (!token || !user) return <SignIn config={config} problem={problem} onSignedIn={signIn} />;

  return (
    <div class="shell">
      <header class="top">
        <h1>
          docqa <span class="set">set {config.set.toUpperCase()}</span>
        </h1>
        <nav aria-label="Panels">
          {panels.map((item) => (
            <button
              type="button"
              key={item.id}
              class={item.id === panel ? "tab active" : "tab"}
              aria-pressed={item.id === panel}
              data-testid={`tab-${item.id}`}
              onClick={() => setPanel(item.id)}
            >
              {item.label}
            </button>
          ))}
        </nav>
        <div class="who" data-testid="who">
          <span>{user.email}</span>
          <span class="org">{user.orgId}</span>
          <button type="button" class="link" onClick={() => signOut()}>
            Sign out
          </button>
        </div>
      </header>
      {problem && <p class="problem">{problem}</p>}
      <main>
        <section hidden={panel !== "ask"}>
          <AskPanel api={api} />
        </section>
        <section hidden={panel !== "upload"}>
          <UploadPanel api={api} config={config} />
        </section>
        <section hidden={panel !== "documents"}>
          <DocumentsPanel api={api} visible={panel === "documents"} />
        </section>
        <section hidden={panel !== "status"}>{panel === "status" && <StatusPanel api={api} user={user} />}</section>
      </main>
      <footer>docqa {config.version}: nothing on this page is loaded from outside this server.</footer>
    </div>
  );
}
