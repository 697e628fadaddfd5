/**
 * Status: the service's backends and whether each is ready, the embedding model, the answerer
 * and chat model, the reranker, and the counts of the user's organisation.
 */
import { useEffect, useState } from "preact/hooks";
import type { UiStatus, UiUser } from "../src/ui-api-types.ts";
import { type ApiClient, messageOf } from "./api-client.ts";

function Row({ name, value, state }: { name: string; value: string; state: "ready" | "degraded" | "off" }) {
  return (
    <tr data-testid="status-row" data-name={name}>
      <th scope="row">{name}</th>
      <td>{value}</td>
      <td>
        <span class={`state ${state}`}>{state}</span>
      </td>
    </tr>
  );
}

export function StatusPanel({ api, user }: { api: ApiClient; user: UiUser }) {
  const [status, setStatus] = useState<UiStatus | undefined>();
  const [error, setError] = useState<string | undefined>();

  useEffect(() => {
    api.status().then(setStatus, (failure: unknown) => setError(messageOf(failure)));
  }, [api]);

  if (error)
    return (
      <p class="problem" role="alert">
        {error}
      </p>
    );
  if (!status) return <p class="pending">Loading…</p>;
  const { health, statistics } = status;
  const embeddingState = health.embeddings.status === "ready" ? "ready" : health.embeddings.status === "disabled" ? "off" : "degraded";
  const chat = health.chatModel;
  return (
    <div class="status" data-testid="status">
      <h2>
        Service <span class={`state ${health.status === "ok" ? "ready" : "degraded"}`}>{health.status}</span>
      </h2>
      <table>
        <tbody>
          <Row name="Vector index" value={health.stores.vector ?? "none (BM25 only)"} state={health.stores.vector ? "ready" : "off"} />
          <Row name="Keyword index" value={health.stores.keyword} state="ready" />
          <Row
            name="Embedding model"
            value={`${health.embeddings.status === "disabled" ? "none" : health.embeddings.model}${health.embeddings.detail ? `: ${health.embeddings.detail}` : ""}`}
            state={embeddingState}
          />
          <Row name="Answerer" value={health.answerer} state="ready" />
          <Row
            name="Chat model"
            value={
              chat?.status === "ready"
                ? `${chat.provider ?? ""} ${chat.model ?? ""}`.trim()
                : `none${chat?.detail ? `: ${chat.detail}` : ""}`
            }
            state={chat?.status === "ready" ? "ready" : "off"}
          />
          <Row name="Reranker" value={health.reranker ?? "none"} state={health.reranker ? "ready" : "off"} />
        </tbody>
      </table>
      <h3>Your organisation</h3>
      <table>
        <tbody>
          <tr>
            <th scope="row">Organisation</th>
            <td data-testid="status-org">{user.orgId}</td>
          </tr>
          <tr>
            <th scope="row">Chunks stored</th>
            <td data-testid="status-chunks">{statistics.organisation?.chunks ?? "unknown"}</td>
          </tr>
          <tr>
            <th scope="row">Organisation stores open on this server</th>
            <td>{statistics.openOrganisationStores ?? "not tracked by these backends"}</td>
          </tr>
          <tr>
            <th scope="row">You</th>
            <td>
              {user.email}
              {user.roles.length > 0 ? `; roles ${user.roles.join(", ")}` : ""}
              {user.groups.length > 0 ? `; groups ${user.groups.join(", ")}` : ""}
            </td>
          </tr>
        </tbody>
      </table>
      <p class="meta">
        docqa {status.version}, endpoint set {status.set.toUpperCase()}
      </p>
    </div>
  );
}
