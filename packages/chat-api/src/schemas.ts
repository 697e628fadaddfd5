/**
 * Request and response schemas of endpoint set B, field for field as in the interface
 * specification ("Set B bodies"), with OpenAPI metadata for `/docs` and `/redoc`. Where the spec
 * says "not shown" (items of `context`, keys of `filters`, form field names, job states) the
 * shapes here are docqa's, documented in `docs/chat-api.md`.
 */
import { type PredictResultShape, predictResultSchema } from "@docqa/core";
import { formatList } from "@docqa/core/ingestion";
import { maximumMetadataValues, metadataKeyPattern } from "@docqa/core/stores";
import {
  questionTextSchema,
  type ResultWire,
  type ResultWireOptions,
  resultWireOf,
  type ShownFields,
  type WireFieldOverride,
} from "@docqa/http";
import { z } from "@hono/zod-openapi";

/** Largest `limit` of `POST /api/search`. */
export const maximumSearchLimit = 100;

/**
 * Most keys in `filters` of `POST /api/search`. Each key is one condition, or two for a range
 * (`{gte, lte}`), within the core's `maximumMetadataConditions` (64).
 */
export const maximumFilterKeys = 32;

/** Most previous messages accepted in `context` of `POST /api/chat`. */
export const maximumContextMessages = 50;

/** Response of `GET /health` (spec "Health response (B)"). */
export const healthResponseSchema = z
  .object({
    status: z.enum(["ok", "degraded"]).openapi({
      description: "`ok`, or `degraded` when the embedding model is unavailable and retrieval runs on BM25 alone.",
      example: "ok",
    }),
    timestamp: z.string().openapi({ description: "Current time, ISO 8601 in UTC.", example: "2026-01-15T09:30:00.000Z" }),
    version: z.string().openapi({ description: "Version of `@docqa/chat-api`.", example: "0.1.0" }),
  })
  .openapi("HealthResponse");

/** One previous message of a conversation (items of `context`; the spec does not show their shape). */
export const chatMessageSchema = z
  .object({
    role: z.enum(["user", "assistant"]).openapi({ description: "Who wrote the message.", example: "user" }),
    content: z.string().min(1).max(20_000).openapi({ description: "The message text.", example: "How many vacation days do I get?" }),
  })
  .openapi("ChatMessage");

/** Body of `POST /api/chat` (spec "Chat request"). */
export const chatRequestSchema = z
  .object({
    message: questionTextSchema("The user's message.", "And for contractors?"),
    sessionId: z.string().min(1).max(200).openapi({
      description: "Session identifier for continuity; used as the conversation's thread. Any string of 1 to 200 characters.",
      example: "session-7f3a",
    }),
    context: z
      .array(chatMessageSchema)
      .max(maximumContextMessages)
      .optional()
      .openapi({
        description: `Previous messages of the conversation, oldest first (at most ${maximumContextMessages}), passed to the service with the question.`,
        example: [
          { role: "user", content: "How many vacation days do employees get?" },
          { role: "assistant", content: "Employees get 25 vacation days per year. [1]" },
        ],
      }),
  })
  .openapi("ChatRequest");

/** Set B's prose for the result fields it shows, which names its other wire fields (the rest is the `onWire` marker's). */
const setBFields = {
  abstained: {
    description:
      "docqa addition: true when the documents the user may read do not answer the message; `response` is then the fixed sentence that no information could be found, `sources` is empty and `confidence` is 0.",
  },
  abstentionReason: {
    description:
      "docqa addition: why it abstained: `no_documents` (nothing readable was retrieved), `low_relevance` (what was retrieved is not about the message), `not_answerable` (it is about the subject but does not answer; also when the model abstains); null when it answered.",
  },
} satisfies { [Field in keyof ShownFields<PredictResultShape, "B">]?: WireFieldOverride };

/** Set B's own answer fields, computed from the result, the request and the settings; see {@link chatResponseSettings}. */
const setBOwnFields = {
  response: z.string().openapi({
    description:
      "The answer rendered as text: the summary, then supporting points, caveats and further information as lists, each statement followed by its citations `[n]`, then a `Sources:` list naming the file (and page, section, record or rows) of each `[n]`.",
    example: "Employees get 25 vacation days per year. [1]\n\nSources:\n[1] handbook.pdf, page 4",
  }),
  sources: z
    .array(z.string())
    .openapi({ description: "File names of the cited sources, in citation order, without duplicates.", example: ["handbook.pdf"] }),
  confidence: z.number().min(0).max(1).openapi({
    description:
      "Mean retrieval strength of the cited chunks (fused score divided by `WEIGHT_VECTOR + WEIGHT_BM25`, capped at 1) times the share of the answer's statements (summary and supporting points) that cite a source; 0 when nothing is cited, and 0 when the service abstained (`abstained`).",
    example: 0.82,
  }),
  sessionId: z.string().openapi({ description: "The request's `sessionId`.", example: "session-7f3a" }),
  unsupportedCitations: z.number().int().min(0).openapi({
    description:
      "docqa addition: number of cited statements that their cited source does not support (neither quoted from it nor sharing `CITATION_MIN_OVERLAP` of their terms with it); 0 when every citation is supported.",
    example: 0,
  }),
};

/**
 * Set B's settings of `resultWireOf`: the spec's fields first ("Chat response": `response`,
 * `sources`, `confidence`, `sessionId`), which set B computes itself (the rendered answer, the
 * cited files, the confidence, the request's session), then every field marked `onWire` for set
 * B, in camelCase, with {@link setBFields}, then `unsupportedCitations`, which set B reports as a
 * count. `toWire` takes set B's own fields as its second argument. Use with
 * `resultWireOf({ result, ...chatResponseSettings })` over an extension of the result schema.
 */
export const chatResponseSettings = {
  set: "B",
  case: "camelCase",
  fields: setBFields,
  extra: setBOwnFields,
  leading: ["response", "sources", "confidence", "sessionId"],
} satisfies Omit<ResultWireOptions<PredictResultShape, "B", "camelCase", typeof setBOwnFields>, "result">;

/** Set B's answer wire over `predictResultSchema` ({@link chatResponseSettings}); the chat route maps with it. */
export const chatResponseWire: ResultWire<PredictResultShape, "B", "camelCase", typeof setBOwnFields> = resultWireOf({
  result: predictResultSchema,
  ...chatResponseSettings,
});

/** Response of `POST /api/chat` (spec "Chat response"): {@link chatResponseWire}'s fields. */
export const chatResponseSchema = z.object(chatResponseWire.shape).openapi("ChatResponse");

const scalarSchema = z.union([z.string(), z.number(), z.boolean()]);
const oneOrManySchema = <T extends z.ZodType>(schema: T) => z.union([schema, z.array(schema).min(1).max(maximumMetadataValues)]);
const dateSchema = z
  .union([z.iso.date(), z.iso.datetime({ offset: true })])
  .openapi({ description: "ISO 8601 date (`2024-05-01`) or date-time (`2024-05-01T12:00:00Z`).", example: "2024-05-01" });

/** A condition on any other metadata key: a value (equal), a list (any of), or a range. */
export const metadataFilterValueSchema = z
  .union([
    scalarSchema,
    z.array(scalarSchema).min(1).max(maximumMetadataValues),
    z
      .object({ gte: z.union([z.string(), z.number()]).optional(), lte: z.union([z.string(), z.number()]).optional() })
      .strict()
      .refine((range) => range.gte !== undefined || range.lte !== undefined, "a range needs gte, lte or both"),
  ])
  .openapi("MetadataFilterValue", {
    description: "A value (equal), a list of values (any of them), or a range `{gte, lte}` (inclusive; strings compare lexicographically).",
  });

/** `filters` of `POST /api/search`. */
export const searchFiltersSchema = z
  .object({
    type: oneOrManySchema(z.string().min(1))
      .optional()
      .openapi({
        description: `Document type, or a list of types: ${formatList("types")} for ingested files; \`summary\` for RAPTOR summaries.`,
        example: "pdf",
      }),
    source: oneOrManySchema(z.string().min(1)).optional().openapi({
      description: "Source system (`metadata.source`), or a list of them.",
      example: "hr-wiki",
    }),
    created_after: dateSchema.optional().openapi({
      description: "Only documents whose `created_at` is on or after this date or time (inclusive, UTC).",
      example: "2024-01-01",
    }),
    created_before: dateSchema.optional().openapi({
      description: "Only documents whose `created_at` is on or before this date or time (inclusive; a date covers its whole day, UTC).",
      example: "2024-12-31",
    }),
  })
  .catchall(metadataFilterValueSchema)
  .superRefine((filters, context) => {
    const keys = Object.keys(filters);
    if (keys.length > maximumFilterKeys) {
      context.addIssue({ code: "custom", message: `${keys.length} filter keys; at most ${maximumFilterKeys} are allowed` });
    }
    for (const key of keys) {
      if (!metadataKeyPattern.test(key)) {
        context.addIssue({
          code: "custom",
          path: [key],
          message: 'a filter key is 1 to 128 ASCII letters, digits, "_", "-", ".", ":" or "@"',
        });
      }
    }
  })
  .openapi("SearchFilters", {
    description: `All given conditions must hold. Any other key filters on that metadata key, for example \`{"department": "hr"}\`, \`{"filename": ["a.pdf", "b.pdf"]}\` or \`{"page": {"gte": 3, "lte": 5}}\`. At most ${maximumFilterKeys} keys, each 1 to 128 ASCII letters, digits, \`_\`, \`-\`, \`.\`, \`:\` or \`@\`; a list holds 1 to ${maximumMetadataValues} values.`,
    example: { type: "pdf", created_after: "2024-01-01", department: "hr" },
    maxProperties: maximumFilterKeys,
    // JSON Schema 2020-12 `propertyNames` (OpenAPI 3.1), which the metadata type does not list.
    ...({ propertyNames: { type: "string", pattern: metadataKeyPattern.source } } as object),
  });

/** Body of `POST /api/search` (spec "Search request"). */
export const searchRequestSchema = z
  .object({
    query: questionTextSchema("Search query.", "vacation days for new employees"),
    limit: z
      .number()
      .int()
      .min(1)
      .max(maximumSearchLimit)
      .default(10)
      .openapi({ description: `Maximum number of results, 1 to ${maximumSearchLimit}; default 10.`, example: 10 }),
    filters: searchFiltersSchema.optional(),
  })
  .openapi("SearchRequest");

/** One result of `POST /api/search`. */
export const searchResultSchema = z
  .object({
    id: z.string().openapi({ description: "Chunk id, `<document id>::<chunk index>`.", example: "handbook.pdf::3" }),
    content: z
      .string()
      .openapi({ description: "The chunk's text.", example: "New employees receive 20 vacation days in their first year." }),
    score: z.number().openapi({
      description: "Relevance: the fused hybrid score (or the reranker's score when reranking ran); higher is better.",
      example: 0.91,
    }),
    metadata: z
      .object({
        filename: z
          .string()
          .openapi({ description: "File name; for documents stored through `/upsert`, the document id.", example: "handbook.pdf" }),
        type: z.string().openapi({ description: `Document type (${formatList("types")}, \`summary\`, ...).`, example: "pdf" }),
      })
      .catchall(z.unknown())
      .openapi({ description: "The chunk's metadata: `filename`, `type`, `created_at`, `doc_id`, `source`, `page`, `section`, ..." }),
  })
  .openapi("SearchResult");

/** Response of `POST /api/search` (spec "Search response"). */
export const searchResponseSchema = z
  .object({
    results: z.array(searchResultSchema),
    total: z.number().int().min(0).openapi({
      description:
        "Total number of matches: the chunks the user may read that pass `filters` and contain a term of the query (as BM25 matches them), together with the results returned; at least the number of results, whatever `limit`. On Milvus, keyword matches beyond 16,384 are not counted.",
      example: 12,
    }),
  })
  .openapi("SearchResponse");

/** An uploaded file in a multipart body. */
const uploadedFileSchema = z.custom<File>((value) => value instanceof File, "must be a file upload");

/** Multipart body of `POST /api/ingest`. */
export const ingestFormSchema = z
  .object({
    files: z.union([uploadedFileSchema, z.array(uploadedFileSchema).min(1)]).openapi({
      type: "array",
      items: { type: "string", format: "binary" },
      description: `One or more files (repeat the field for several): ${formatList("names", "or")}, recognised by extension. Each file's name is its document id: uploading the same name again replaces that document.`,
    }),
    metadata: z.string().optional().openapi({
      description:
        'Optional JSON object applied to every document, for example `{"acl": "|user:_all_|", "source": "upload", "department": "hr"}`. Without `acl`, only the uploader (the owner) can read the documents.',
      example: '{"acl": "|user:_all_|", "source": "upload"}',
    }),
  })
  .openapi("IngestForm");

/** Query of `POST /api/ingest`. */
export const ingestQuerySchema = z.object({
  wait: z
    .enum(["true", "false"])
    .optional()
    .openapi({
      param: { name: "wait", in: "query" },
      description:
        "`true` (default): answer when the job has finished, with its counts. `false`: answer 202 at once with the queued job; poll `GET /api/ingest/{jobId}`.",
      example: "true",
    }),
});

const jobStateSchema = z
  .enum(["queued", "running", "succeeded", "partially_failed", "failed"])
  .openapi({ description: "`queued` → `running` → `succeeded` (every file ingested or unchanged), `partially_failed` or `failed`." });

const fileCountsSchema = z
  .object({
    total: z.number().int(),
    processed: z.number().int(),
    ingested: z.number().int(),
    unchanged: z.number().int().openapi({ description: "Files skipped because the same bytes were already ingested." }),
    failed: z.number().int(),
  })
  .openapi("IngestFileCounts");

const fileErrorSchema = z
  .object({
    file: z.string(),
    code: z.string().openapi({ example: "corrupt_file" }),
    message: z.string(),
  })
  .openapi("IngestFileError");

/** Response of `POST /api/ingest` (spec "Ingest response"), plus the job's state and file counts. */
export const ingestResponseSchema = z
  .object({
    success: z
      .boolean()
      .openapi({ description: "True when every file was ingested or was unchanged (and, with `wait=false`, when the job was queued)." }),
    documentsProcessed: z.number().int().openapi({
      description: "Documents written: one per file, one per record of a JSON record array; 0 for unchanged files and for a queued job.",
      example: 3,
    }),
    jobId: z.string().openapi({
      description: "The ingestion job; read its state with `GET /api/ingest/{jobId}`.",
      example: "4c0f8a52-3d1e-4b7a-9f65-0e2d8c1b7a90",
    }),
    state: jobStateSchema,
    files: fileCountsSchema,
    errors: z.array(fileErrorSchema).openapi({ description: "Rejected files with the reason." }),
  })
  .openapi("IngestResponse");

/** Path parameters of `GET /api/ingest/{jobId}`. */
export const jobParamsSchema = z.object({
  jobId: z
    .string()
    .min(1)
    .max(200)
    .openapi({ param: { name: "jobId", in: "path" }, example: "4c0f8a52-3d1e-4b7a-9f65-0e2d8c1b7a90" }),
});

/** Response of `GET /api/ingest/{jobId}`. */
export const ingestJobResponseSchema = z
  .object({
    jobId: z.string(),
    state: jobStateSchema,
    success: z.boolean().openapi({ description: "True once the job has succeeded." }),
    documentsProcessed: z.number().int().openapi({ description: "Documents written so far." }),
    chunks: z.number().int().openapi({ description: "Chunks written so far, including RAPTOR summary nodes." }),
    files: fileCountsSchema,
    errors: z.array(fileErrorSchema),
    warnings: z.array(z.object({ file: z.string(), message: z.string() })),
    createdAt: z.string().openapi({ description: "ISO 8601." }),
    startedAt: z.string().optional(),
    finishedAt: z.string().optional(),
    failure: z.string().optional().openapi({ description: "Why the whole job failed, when it did." }),
  })
  .openapi("IngestJob");

/** Response of `DELETE /api/memory`. */
export const forgetResponseSchema = z
  .object({
    deleted: z
      .number()
      .int()
      .openapi({ description: "Conversations deleted: the user's session and the threads (sessions) they created." }),
  })
  .openapi("ForgetResponse");

const embeddingModelSchema = z
  .object({ id: z.string().openapi({ example: "Xenova/bge-small-en-v1.5" }), dimension: z.number().int().openapi({ example: 384 }) })
  .openapi("EmbeddingModel");

/** Response of `GET /api/reindex`. */
export const reindexStatusResponseSchema = z
  .object({
    orgId: z.string(),
    configuredModel: embeddingModelSchema
      .nullable()
      .openapi({ description: "The service's embedding model (`EMBED_MODEL_NAME`), or null when none is loaded." }),
    indexModel: embeddingModelSchema
      .nullable()
      .openapi({ description: "The model of the organisation's vectors; null when it holds none." }),
    vectors: z.enum(["current", "other_model", "no_vectors", "empty", "none"]).openapi({
      description:
        "`current`: the configured model; `other_model`: queries are embedded with the index's model when it can be loaded, else answered with BM25 alone, until reindexed; `no_vectors`: BM25 alone until reindexed; `empty`: no chunks; `none`: the deployment has no vector index.",
    }),
    job: z
      .object({
        jobId: z.string(),
        orgId: z.string(),
        model: embeddingModelSchema,
        fromModel: embeddingModelSchema.nullable(),
        state: z.enum(["running", "succeeded", "failed"]),
        phase: z.enum(["copying", "catching_up", "switching", "retiring"]).optional(),
        total: z.number().int().openapi({ description: "Chunks of the organisation when the job started." }),
        processed: z.number().int().openapi({ description: "Chunks embedded with the new model so far (catch-up included)." }),
        startedAt: z.string(),
        updatedAt: z
          .string()
          .openapi({ description: "Refreshed while the job runs; a running job silent for a minute is reported failed." }),
        finishedAt: z.string().optional(),
        failure: z.string().optional(),
      })
      .nullable()
      .openapi({ description: "The latest reindex job (`docqa reindex`, `service.reindex`), of any process; null when there was none." }),
  })
  .openapi("ReindexStatusResponse");
/** Error body of every set B error: `{"error": {"code", "message"}}`. */
export const errorResponseSchema = z
  .object({
    error: z.object({
      code: z.string().openapi({ description: "Stable machine-readable code.", example: "invalid_request" }),
      message: z
        .string()
        .openapi({ description: "What went wrong and what to do.", example: "limit: Too big: expected number to be <=100" }),
      details: z
        .array(z.object({ path: z.string(), message: z.string() }))
        .optional()
        .openapi({ description: "For body validation errors: one entry per invalid field." }),
    }),
  })
  .openapi("ErrorResponse");

/** Body of `POST /api/chat`. */
export type ChatRequestBody = z.infer<typeof chatRequestSchema>;
/** Response of `POST /api/chat`. */
export type ChatResponseBody = ReturnType<typeof chatResponseWire.toWire>;
/** An item of `context`. */
export type ChatMessage = z.infer<typeof chatMessageSchema>;
/** `filters` of `POST /api/search`. */
export type SearchFilters = z.infer<typeof searchFiltersSchema>;
/** Body of `POST /api/search`. */
export type SearchRequestBody = z.infer<typeof searchRequestSchema>;
/** Response of `POST /api/search`. */
export type SearchResponseBody = z.infer<typeof searchResponseSchema>;
/** Response of `POST /api/ingest`. */
export type IngestResponseBody = z.infer<typeof ingestResponseSchema>;
/** Response of `GET /api/ingest/{jobId}`. */
export type IngestJobResponseBody = z.infer<typeof ingestJobResponseSchema>;
/** Response of `GET /health`. */
export type HealthResponseBody = z.infer<typeof healthResponseSchema>;
/** Body of every set B error. */
export type ErrorResponseBody = z.infer<typeof errorResponseSchema>;
