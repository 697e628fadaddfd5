/**
 * The typed state a request carries through its stages. `RetrievalState` is what `search` and
 * `predict` share (question, planned queries, candidates, readable results, the final chunks);
 * `PredictState` adds conversation, context, the generated answer and its citations.
 *
 * Each field says which stage writes it. Fields are initialised when the state is created, so a
 * stage never meets `undefined` where a list is expected: a stage that has nothing to do leaves
 * them as they are.
 */
import type { Principal } from "../acl/principal.js";
import type { Answer } from "../answering/answer.js";
import type { AnswerContext } from "../answering/answer-context.js";
import type { GeneratedAnswer } from "../answering/answerer.js";
import type { Evidence, TableEvidence } from "../answering/evidence.js";
import type { ConversationMemory } from "../memory/conversation-memory.js";
import type { ConversationTurn, RewriteMethod } from "../memory/memory-store.js";
import type { FusedChunk } from "../retrieval/fuse-results.js";
import type { RetrievalSettings, RetrievedChunk } from "../retrieval/retrieval-settings.js";
import type { PredictStateFields } from "../service/predict-result.js";
import type { ChunkFilter } from "../stores/chunk-filter.js";
import type { EmbeddingModelInfo } from "../stores/vector-index.js";
import type { StageTiming } from "./stage.js";

/** One query to retrieve for: the question itself, or a sub-query of a decomposed question. */
export interface PlannedQuery {
  text: string;
  /** Results this query contributes to the final list (`RETRIEVER_TOP_K`, or `SUBQUERY_TOP_K` for a sub-query). */
  topK: number;
  kind: "question" | "subquery";
}

/** The retrieval of one planned query, filled in by the retrieval stages in turn. */
export interface QueryRetrieval {
  query: PlannedQuery;
  /** Fused candidates, best first (`retrieve`), pre-filtered by principal in the indexes. */
  candidates: FusedChunk[];
  /** Candidates that passed the seven ACL rules and the filters (`access-filter`), reordered by `rerank`. */
  results: RetrievedChunk[];
  /** Whether the vector list took part (false in BM25-only mode or when the query embedding failed). */
  vectorUsed: boolean;
  /** The query's embedding when the vector list took part (`retrieve`), reused by later stages. */
  queryVector?: Float32Array | undefined;
  /**
   * The model of `queryVector`: the organisation's index model, which is not the configured model
   * while an index still holds vectors of another (docs/models.md). A later stage reuses the
   * vector only with the same model.
   */
  queryModel?: EmbeddingModelInfo | undefined;
}

/** The state shared by the `search` and `predict` pipelines. */
export interface RetrievalState {
  /** Organisation (the token's `org_id`). */
  readonly orgId: string;
  /** The asking user, normalised (lower-cased name, roles and groups). */
  readonly principal: Principal;
  /** Correlation id of logs and PERF lines. */
  readonly requestId: string;
  readonly signal: AbortSignal | undefined;
  /** The question as received. */
  readonly input: string;
  /** The normalised question (`normalize`). */
  question: string;
  /** The query retrieval uses: the question, or a follow-up rewritten to stand alone (`rewrite-follow-up`). */
  query: string;
  /** Further filters (documents, metadata); the principal filter is always added. */
  readonly filter: Omit<ChunkFilter, "principal"> | undefined;
  /** Depths, fusion and reranking of this request. */
  settings: RetrievalSettings;
  /** What to retrieve (`plan`; `search` plans the query alone). */
  queries: PlannedQuery[];
  /** One entry per planned query, in the order of `queries` (`retrieve`, `access-filter`, `rerank`). */
  retrievals: QueryRetrieval[];
  /** The final ranked chunks, merged over the queries and cut to their top-k (`select-top-k`). */
  chunks: RetrievedChunk[];
  /**
   * The number of matches (`count-matches`, `search` only): the readable chunks passing the
   * filters that match the query's terms, and the results; undefined when the keyword index
   * cannot count (the number of results is reported instead).
   */
  total?: number | undefined;
  /** Stage timings, appended by `runStages`. */
  readonly timings: StageTiming[];
}

/**
 * The state of one `predict` request. The result fields the stages write under their result name
 * (`sources`, `droppedCitations`, `unsupportedCitations`, `answerability`, `subqueries`) are
 * {@link PredictStateFields}, declared with the result schema (`service/predict-result.ts`).
 */
export interface PredictState extends RetrievalState, PredictStateFields {
  /** The thread continued or created (`conversation`). */
  threadId: string;
  /** Earlier turns of the thread within the token budget, oldest first (`conversation`). */
  history: ConversationTurn[];
  /** Conversation memory, when the user is known (`conversation`); `record-memory` writes the turn to it. */
  conversation: ConversationMemory | undefined;
  /** How `query` was obtained from the question (`rewrite-follow-up`). */
  rewriteMethod: RewriteMethod;
  /** The context given to the answerer, keyed `doc_<n>` (`build-context`). */
  context: AnswerContext;
  /** The context's answer units ranked against the question (`rank-evidence`). */
  evidence: Evidence | undefined;
  /** The answer computed over a whole table, when the best units are a table's cells (`answer-from-table`). */
  tableAnswer: TableEvidence | undefined;
  /** The answerer's output before citations are resolved (`generate`). */
  generated: GeneratedAnswer | undefined;
  /** The answer with resolved citations (`resolve-citations`). */
  answer: Answer | undefined;
  /** The request's inputs the stages need besides the question. */
  readonly request: {
    /** Thread to continue, as sent. */
    threadId: string | undefined;
    /** Client-supplied history (set B's `context`), used when the thread has none. */
    history: readonly { role: "user" | "assistant"; content: string }[];
    /** Streams the model's tokens when set. */
    onToken: ((text: string) => void) | undefined;
    /** False: conversation memory is neither read nor written (`PredictRequest.memory`). */
    memory?: boolean | undefined;
  };
}
