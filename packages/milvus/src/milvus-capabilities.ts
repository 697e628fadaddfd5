/**
 * What the Milvus server at hand can do, probed rather than assumed, since docqa runs against
 * Milvus 2.4, 2.5+ and milvus-lite:
 *
 * - filter templating (`{placeholder}` values, Milvus 2.5+), probed once with a query;
 * - the sign of BM25 scores, read from the server version (milvus-lite 3.x negates them);
 * - the BM25 tokenizers to try for a new chunk collection, in order, and whether a refusal
 *   means the server lacks that tokenizer or analyzer (then the next one is tried).
 */
import { DocqaError, type Logger } from "@docqa/core";
import type { FilterValueMode } from "./filter-expression.js";
import { checkStatus, type MilvusConnection, MilvusStatusError } from "./milvus-connection.js";

/**
 * The probed capabilities of one server. Probes run lazily on first use and are remembered
 * until {@link reset}; a failed probe is not remembered.
 */
export class MilvusCapabilities {
  private filterMode: Promise<FilterValueMode> | undefined;

  /**
   * @param filterValues - how filter values reach Milvus: fixed (`template`, `literal`) or `auto`
   *   (probed once).
   */
  constructor(
    private readonly connection: MilvusConnection,
    private readonly logger: Logger,
    private readonly filterValues: "auto" | FilterValueMode,
  ) {}

  /**
   * How filter values reach this server: fixed by the settings, or probed once with a query of
   * `collection` (which must exist and be loaded).
   *
   * @throws {DocqaError} `store_unavailable` when the probe cannot run.
   */
  filterValueMode(collection: string): Promise<FilterValueMode> {
    if (this.filterValues !== "auto") return Promise.resolve(this.filterValues);
    this.filterMode ??= this.probeTemplating(collection).catch((error: unknown) => {
      this.filterMode = undefined;
      throw error;
    });
    return this.filterMode;
  }

  /**
   * +1 when the server returns BM25 scores as they are (Milvus), −1 when it returns them negated
   * like distances (milvus-lite 3.x), so that callers always get non-negative BM25 scores.
   */
  async bm25ScoreSign(): Promise<1 | -1> {
    const version = await this.connection.serverVersion();
    return /lite/i.test(version) ? -1 : 1;
  }

  /** Forgets the probed filter mode (the server may be another one after a reconnect). */
  reset(): void {
    this.filterMode = undefined;
  }

  /**
   * Whether the server supports filter templating: a query with a `{placeholder}` succeeds on
   * Milvus 2.5+ and fails to parse on servers without templating (milvus-lite, Milvus 2.4).
   */
  private async probeTemplating(collection: string): Promise<FilterValueMode> {
    try {
      await this.connection.call("probe filter templating", async (client, timeout) =>
        checkStatus(
          "probe filter templating",
          await client.query({
            collection_name: collection,
            filter: "doc_id == {docqa_probe}",
            exprValues: { docqa_probe: "" },
            output_fields: ["doc_id"],
            limit: 1,
            timeout,
          }),
        ),
      );
      this.logger.debug("Milvus supports filter templating", { component: "milvus" });
      return "template";
    } catch (error) {
      const cause = DocqaError.isInstance(error) ? error.cause : undefined;
      if (!(cause instanceof MilvusStatusError) || cause.collectionMissing || cause.collectionNotLoaded) throw error;
      this.logger.info("Milvus has no filter templating; filter values are sent as escaped literals", {
        component: "milvus",
        reason: cause.status.reason.split("\n")[0],
      });
      return "literal";
    }
  }
}

/**
 * The Milvus tokenizers of `bm25_text` to try for a new chunk collection, best first: with
 * `docqa` text analysis `whitespace` (the terms are already analysed), else `standard` on servers
 * without it; with `milvus` text analysis Milvus's `english` analyzer.
 */
export function bm25Tokenizers(textAnalysis: "docqa" | "milvus"): string[] {
  return textAnalysis === "docqa" ? ["whitespace", "standard"] : ["english"];
}

/** Whether creating a collection failed because the server lacks the tokenizer or analyzer asked for. */
export function isUnsupportedTokenizer(error: unknown): boolean {
  const cause = DocqaError.isInstance(error) ? error.cause : undefined;
  return cause instanceof MilvusStatusError && /tokenizer|analyzer/i.test(cause.status.reason);
}
