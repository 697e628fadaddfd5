/**
 * The sign-in screen: paste an access token (checked with `/api/me`), or, when the server allows
 * it in development (`WEB_UI_DEV_TOKENS`), mint one for an e-mail, organisation, roles and groups.
 */
import { useState } from "preact/hooks";
import type { UiConfig, UiUser } from "../src/ui-api-types.ts";
import { apiClient, messageOf } from "./api-client.ts";

interface SignInProps {
  config: UiConfig;
  problem: string | undefined;
  onSignedIn(token: string, user: UiUser): void;
}

const list = (text: string) =>
  text
    .split(/[,\s]+/)
    .map((item) => item.trim())
    .filter((item) => item !== "");

export function SignIn({ config, problem, onSignedIn }: SignInProps) {
  const [token, setToken] = useState("");
  const [error, setError] = useState<string | undefined>(problem);
  const [busy, setBusy] = useState(false);
  const [email, setEmail] = useState("");
  const [orgId, setOrgId] = useState("");
  const [roles, setRoles] = useState("");
  const [groups, setGroups] = useState("");

  const tryToken = async (candidate: string) => {
    setBusy(true);
    setError(undefined);
    try {
      onSignedIn(candidate, await apiClient(candidate).me());
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setBusy(false);
    }
  };

  const mint = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const { token: minted } = await apiClient().mintDevelopmentToken({ email, orgId, roles: list(roles), groups: list(groups) });
      await tryToken(minted);
    } catch (failure) {
      setError(messageOf(failure));
      setBusy(false);
    }
  };

  return (
    <div class="sign-in">
      <h1>docqa</h1>
      <p class="lead">Questions answered from your organisation's documents, with citations.</p>
      <form
        class="card"
        onSubmit={(event) => {
          event.preventDefault();
          void tryToken(token.trim());
        }}
      >
        <h2>Sign in</h2>
        <label for="token">Access token</label>
        <textarea
          id="token"
          data-testid="token-input"
          rows={4}
          placeholder="Paste the JWT your administrator gave you (docqa token --email … --org …)"
          value={token}
          onInput={(event) => setToken(event.currentTarget.value)}
        />
        <button type="submit" data-testid="sign-in" disabled={busy || token.trim() === ""}>
          Sign in
        </button>
      </form>
      {config.devTokens && (
        <form
          class="card development"
          onSubmit={(event) => {
            event.preventDefault();
            void mint();
          }}
        >
          <h2>Development sign-in</h2>
          <p class="hint">This server mints tokens for anyone (WEB_UI_DEV_TOKENS): never in production.</p>
          <label for="dev-email">E-mail</label>
          <input
            id="dev-email"
            data-testid="dev-email"
            type="email"
            value={email}
            onInput={(event) => setEmail(event.currentTarget.value)}
          />
          <label for="dev-org">Organisation</label>
          <input id="dev-org" data-testid="dev-org" value={orgId} onInput={(event) => setOrgId(event.currentTarget.value)} />
          <label for="dev-roles">Roles (comma-separated)</label>
          <input id="dev-roles" value={roles} onInput={(event) => setRoles(event.currentTarget.value)} />
          <label for="dev-groups">Groups (comma-separated)</label>
          <input id="dev-groups" value={groups} onInput={(event) => setGroups(event.currentTarget.value)} />
          <button type="submit" data-testid="dev-sign-in" disabled={busy || email === "" || orgId === ""}>
            Mint a token and sign in
          </button>
        </form>
      )}
      {error && (
        <p class="problem" role="alert" data-testid="sign-in-error">
          {error}
        </p>
      )}
    </div>
  );
}
