/**
 * The shapes of the page's JSON API (`/ui/api/...`), shared by the server and the browser code.
 * Fields the service defines are its types (`PredictResult`, `IngestionJob`, `ServiceHealth`,
 * `ServiceStatistics` of `@docqa/core`), imported as types only: the browser bundle gets no code
 * from them (the browser's tsconfig maps `@docqa/core` to its sources for the type-check).
 */
import type { IngestionJob, PredictResult, ServiceHealth, ServiceStatistics } from "@docqa/core";

/** A piece of answer text: plain text, or the numbers of the sources cited at that place. */
export type AnswerSegment = { text: string } | { cite: number[] };

/** A cited source, numbered. */
export interface UiSource {
  /** The number shown in the text (`[1]`). */
  number: number;
  /** The context key (`doc_3`). */
  key: string;
  /** The document's title. */
  title: string;
  /** The document's file name (`metadata.filename`), else its document id. */
  fileName: string;
  /**
   * Where in the file: `page 3`, `section Leave > Vacation`, `record 4`, `rows 2-24`; with the
   * chunk (`section Leave, chunk 2`) when another source of the answer would otherwise carry the
   * same file name and location; empty when unknown.
   */
  location: string;
  /** The cited chunk's text. */
  passage: string;
  /**
   * The sentences of `passage` the answer's statements citing this source were drawn from, as
   * character ranges (`start` inclusive, `end` exclusive, UTF-16 code units), in order; the page
   * highlights them. Empty when no sentence matches a statement closely enough.
   */
  cited: { start: number; end: number }[];
  /** The document id. */
  docId: string;
}

/**
 * What `POST /ui/api/ask` answers: the result's thread, query (the one retrieval used, a follow-up
 * rewritten to stand alone), answer mode and abstention as `PredictResult` has them, and its
 * answer and sources laid out for the page.
 */
export interface UiAnswer extends Pick<PredictResult, "threadId" | "query" | "answerMode" | "abstained" | "abstentionReason"> {
  callout: AnswerSegment[];
  positives: AnswerSegment[][];
  caveats: AnswerSegment[][];
  information: AnswerSegment[][];
  sources: UiSource[];
  /** Milliseconds the service took (`PredictResult.timings.totalMs`). */
  totalMs: PredictResult["timings"]["totalMs"];
}

/** A document as the panel lists it. */
export interface UiDocument {
  docId: string;
  title: string;
  fileName: string;
  /** The owner (`metadata.owner_id`), when known. */
  owner?: string | undefined;
  /** Chunks of the document: all of them from a documents API, the matching ones from a search. */
  chunks: number;
  /** When the document was last written (ISO 8601), when known. */
  updatedAt?: string | undefined;
}

/** What `GET /ui/api/config` answers. */
export interface UiConfig {
  /** The endpoint set the page is served on. */
  set: string;
  title: string;
  version: string;
  /** Whether `POST /ui/api/dev-token` mints tokens. */
  devTokens: boolean;
  /** `MAX_UPLOAD_BYTES`. */
  maxUploadBytes: number;
  /** The formats the service ingests (`pdf`, `docx`, ...), from its loaders (`supportedFormats` of `@docqa/core/ingestion`). */
  fileFormats: string[];
  /** Every file extension the service ingests, with its dot (`.md`, `.markdown`, ...): the upload field's `accept` list. */
  fileExtensions: string[];
}

/** What `GET /ui/api/me` answers. */
export interface UiUser {
  email: string;
  orgId: string;
  roles: string[];
  groups: string[];
}

/** What `GET /ui/api/documents` answers. */
export interface UiDocumentList {
  documents: UiDocument[];
  /** `all`: every document the user may read (documents API); `search`: the documents matching the words typed. */
  listing: "all" | "search";
  /** For `all`: the `cursor` of the next page, or null on the last page; null for `search`. */
  nextCursor: string | null;
}

/** An ingestion job as `POST /ui/api/upload` and `GET /ui/api/jobs/{jobId}` answer it (the service's job, without its internal `resume`). */
export type UiJob = Omit<IngestionJob, "resume">;

/** What `GET /ui/api/status` answers: the endpoint set, the version, and the service's health and statistics as it reports them. */
export interface UiStatus {
  set: string;
  version: string;
  health: ServiceHealth;
  statistics: ServiceStatistics;
}

/** An error answer of the page's API. */
export interface UiError {
  error: { code: string; message: string };
}
