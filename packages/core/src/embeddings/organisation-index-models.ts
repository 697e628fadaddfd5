/**
 * Which organisations' vector indexes hold vectors of another embedding model than the
 * configured one, or none at all (ingested before a model was available), as learned from the
 * stores' `embedding_model_mismatch` errors. Such an organisation keeps being served: its queries
 * are embedded with its index's model when that model can be loaded (`embeddingsFor`), else they
 * run on BM25 alone; its writes are embedded the same way, or stored without vectors. A warning
 * names the organisation (at most once per {@link warningIntervalMs}), and the health detail
 * counts them, until `docqa reindex` rebuilds the index with the configured model.
 */
import { DocqaError } from "../errors/docqa-error.js";
import type { Logger } from "../logging/logger.js";
import { type EmbeddingModelInfo, sameModel } from "../stores/vector-index.js";

/** Minimum time between two warnings about the same organisation. */
export const warningIntervalMs = 10 * 60 * 1000;

/** What is known about one organisation whose index does not match the configured model. */
export interface OrganisationIndexModel {
  orgId: string;
  /** The model of the organisation's vectors; `null` when its index holds chunks without vectors. */
  indexModel: EmbeddingModelInfo | null;
  /** ISO 8601 time this was learned. */
  since: string;
}

/**
 * The model an `embedding_model_mismatch` error says the index holds: the model, `null` for an
 * index without vectors, or undefined when the error does not say (or is another error).
 */
export function indexModelOf(error: unknown): EmbeddingModelInfo | null | undefined {
  if (!DocqaError.isInstance(error) || error.code !== "embedding_model_mismatch") return undefined;
  const details = error.details as { indexModel?: EmbeddingModelInfo | null } | undefined;
  return details && "indexModel" in details ? (details.indexModel ?? null) : undefined;
}

/** The organisations whose index model differs from the configured one. */
export class OrganisationIndexModels {
  private readonly known = new Map<string, OrganisationIndexModel>();
  private readonly warned = new Map<string, number>();

  /**
   * @param configured - the configured model, when one is loaded.
   */
  constructor(
    private readonly configured: () => EmbeddingModelInfo | undefined,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The model to embed the organisation's queries and chunks with, when it differs from the
   * configured one: a model, `null` (no vectors: BM25 only), or undefined (use the configured model).
   */
  indexModel(orgId: string): EmbeddingModelInfo | null | undefined {
    return this.known.get(orgId)?.indexModel;
  }

  /**
   * Learns from a store's `embedding_model_mismatch` error what the organisation's index holds,
   * and warns. Returns the model learned (as {@link indexModel}), or undefined when the error
   * does not say, or says the index holds the configured model (a stale entry is then forgotten).
   */
  learn(orgId: string, error: unknown, action: string): EmbeddingModelInfo | null | undefined {
    const indexModel = indexModelOf(error);
    if (indexModel === undefined) return undefined;
    return this.observe(orgId, indexModel, action);
  }

  /**
   * Records what the organisation's index holds, as its store reports it (`vectorModel`): a
   * model other than the configured one, or `null` (no vectors), is remembered and warned about;
   * the configured model, or `undefined` (no chunks), forgets the organisation. Returns the model
   * to embed with as {@link indexModel} does.
   */
  observe(orgId: string, indexModel: EmbeddingModelInfo | null | undefined, action: string): EmbeddingModelInfo | null | undefined {
    const configured = this.configured();
    if (indexModel === undefined || (indexModel && configured && sameModel(indexModel, configured))) {
      this.forget(orgId);
      return undefined;
    }
    const previous = this.known.get(orgId);
    if (!previous || !sameModelOrNull(previous.indexModel, indexModel)) {
      this.known.set(orgId, { orgId, indexModel, since: new Date(this.now()).toISOString() });
    }
    const last = this.warned.get(orgId);
    if (last === undefined || this.now() - last >= warningIntervalMs) {
      this.warned.set(orgId, this.now());
      const holds = indexModel ? `vectors of ${indexModel.id} (${indexModel.dimension} dimensions)` : "no vectors";
      this.logger.warn(
        `organisation ${orgId}'s index holds ${holds}, not of the configured ${configured?.id ?? "model"}: ${action}; run docqa reindex --org ${orgId} to rebuild it`,
        { component: "embeddings", org_id: orgId, index_model: indexModel?.id ?? null },
      );
    }
    return indexModel;
  }

  /**
   * Records that the organisation's index now holds `model` (a reindex switched it): forgotten
   * when `model` is the configured one, else its queries and chunks are embedded with `model`.
   */
  record(orgId: string, model: EmbeddingModelInfo): void {
    const configured = this.configured();
    if (configured && sameModel(configured, model)) {
      this.forget(orgId);
      return;
    }
    this.known.set(orgId, { orgId, indexModel: { ...model }, since: new Date(this.now()).toISOString() });
  }

  /** Forgets the organisation (its index now holds the configured model). */
  forget(orgId: string): void {
    this.known.delete(orgId);
    this.warned.delete(orgId);
  }

  /** Every organisation known not to match, oldest first. */
  snapshot(): OrganisationIndexModel[] {
    return [...this.known.values()].map((entry) => ({ ...entry }));
  }
}

export { sameModel } from "../stores/vector-index.js";

function sameModelOrNull(left: EmbeddingModelInfo | null, right: EmbeddingModelInfo | null): boolean {
  return left === null || right === null ? left === right : sameModel(left, right);
}
