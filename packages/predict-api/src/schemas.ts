/**
 * Request and response schemas of endpoint set A, field for field as in the interface
 * specification ("Endpoint set A"), with OpenAPI metadata for `/docs` and `/redoc`.
 */
import { documentIdPattern, type PredictResultShape, predictResultSchema } from "@docqa/core";
import {
  meaningfulTextPattern,
  questionTextSchema,
  type ResultWire,
  type ResultWireOptions,
  resultWireOf,
  type ShownFields,
  type WireFieldOverride,
} from "@docqa/http";
import { z } from "@hono/zod-openapi";

/** `user_info` (spec "user_info"). */
export const userInfoSchema = z
  .object({
    user_name: z
      .string()
      .min(1)
      .openapi({ description: "The user's e-mail; compared case-insensitively in ACL checks.", example: "ann@example.com" }),
    real_name: z.string().optional().openapi({ description: "Display name.", example: "Ann Example" }),
  })
  .openapi("UserInfo");

/** `user_info` as echoed by `/query`, with organisation, roles and groups. */
export const echoedUserInfoSchema = userInfoSchema
  .extend({
    org_id: z.string().openapi({ example: "3f2c6a1e-8d4b-4c1a-9f0e-2b7d5c9a1e44" }),
    current_roles: z.array(z.string()).openapi({ example: ["employee"] }),
    current_groups: z.array(z.string()).openapi({ example: ["engineering"] }),
  })
  .openapi("EchoedUserInfo");

/** A thread id: UUID form, any version. */
export const threadIdSchema = z.guid("thread_id must be a UUID such as 0b9e5c2a-6f1d-4e8b-9a3c-7d2e1f4b5a60");

/** Body of `POST /query`. */
export const intentRequestSchema = z
  .object({
    text: questionTextSchema("The text to classify.", "How many vacation days do new employees get?"),
    user_info: userInfoSchema,
  })
  .openapi("IntentRequest");

/** Response of `POST /query`. */
export const intentResponseSchema = z
  .object({
    intent: z.enum(["question", "greeting", "small_talk", "feedback", "command", "out_of_scope"]),
    confidence: z.number().min(0).max(1),
    requires_rag: z.boolean(),
    input: z.string(),
    user_info: echoedUserInfoSchema,
  })
  .openapi("IntentResponse");

/** The fields of a question mapping, in the order `extractQuery` reads them. */
export const questionMappingFields = ["query", "text", "question", "input"] as const;

const mappingText = () => questionTextSchema("The question.", "How many vacation days do new employees get?").optional();

/** `query` given as a mapping: one or more of `query`, `text`, `question`, `input`, each a question; other keys are ignored. */
export const questionMappingSchema = z
  .object({ query: mappingText(), text: mappingText(), question: mappingText(), input: mappingText() })
  .catchall(z.unknown())
  .refine((mapping) => questionMappingFields.some((field) => mapping[field] !== undefined), {
    message: "a query mapping needs one of the fields query, text, question, input",
  })
  .openapi("QuestionMapping", {
    description: "A question given as a mapping; its first field among `query`, `text`, `question`, `input` is used.",
    anyOf: questionMappingFields.map((field) => ({ required: [field] })),
  });

/** Body of `POST /predict` and `POST /testpredict`. */
export const predictRequestSchema = z
  .object({
    query: z.union([questionTextSchema("The question.", "How many vacation days do new employees get?"), questionMappingSchema]).openapi({
      description:
        "The question. A mapping is also accepted; its first field among `query`, `text`, `question`, `input` is used (each given one must be a question).",
      example: "How many vacation days do new employees get?",
    }),
    user_info: userInfoSchema,
    thread_id: threadIdSchema.optional().openapi({ description: "An existing thread to continue (UUID)." }),
    stream: z.boolean().optional().openapi({
      description:
        "Answer as Server-Sent Events (`token` events, then a `final` event holding the JSON body). Default: stream when `Accept` includes `text/event-stream`.",
      example: false,
    }),
  })
  .openapi("PredictRequest");

/** Body of `POST /testpredict`: as `/predict`, plus the organisation (no token carries it). */
export const testPredictRequestSchema = predictRequestSchema
  .extend({
    org_id: z.string().min(1).optional().openapi({
      description: "The development organisation (`TESTPREDICT_ORG_ID`, the default); any other is refused with 403 `forbidden`.",
    }),
  })
  .openapi("TestPredictRequest");

/** The Answer object (spec "Answer"). */
export const answerResponseSchema = z
  .object({
    callout_answer: z.string().openapi({ example: "New employees get 20 vacation days in their first year. [Source: doc_1]" }),
    positive_list: z.array(z.string()),
    negative_list: z.array(z.string()),
    info_list: z.array(z.string()),
    keywords: z.array(z.string()),
  })
  .openapi("Answer");

/** A Source (spec "Source"). */
export const sourceSchema = z
  .object({
    title: z.string(),
    source: z.string(),
    page_content: z.string(),
    metadata: z.record(z.string(), z.unknown()).openapi({ description: "Chunk metadata, including `owner_id` and `acl`." }),
  })
  .openapi("Source");

/**
 * Set A's own wire schemas and prose for the result fields it shows (the rest is the core's: the
 * `onWire` marker's description): the spec's Answer and Source components, the typed lists and
 * enums, and descriptions that name set A's other wire fields.
 */
const setAFields = {
  answer: { schema: answerResponseSchema },
  sources: { schema: z.record(z.string(), sourceSchema).openapi({ description: "Cited sources keyed `doc_<n>`." }) },
  answerMode: {
    description:
      "`model`: the language model's answer; `extractive`: no model configured; `extractive-fallback`: the model's output was unusable and the extractive answer replaced it (see `fallback_reason`); `empty-context`: the service abstained before calling the answerer (see `abstention_reason`).",
  },
  abstained: {
    description:
      "docqa addition: true when the answer is the spec's empty-context answer because the readable documents do not answer the question (the callout is the fixed sentence, the lists are empty, `sources` is `{}`).",
  },
  abstentionReason: {
    description:
      "docqa addition: why it abstained: `no_documents` (no readable chunk was retrieved), `low_relevance` (what was retrieved is not about the question), `not_answerable` (it is about the subject but does not answer; also when the model abstains); null when it answered.",
  },
  unsupportedCitations: {
    schema: z
      .array(
        z.object({
          key: z.string().openapi({ example: "doc_2" }),
          text: z.string().openapi({ description: "The cited statement, without its marker." }),
          overlap: z.number().min(0).max(1).openapi({ description: "Share of the statement's terms found in the cited source." }),
        }),
      )
      .openapi({
        description:
          "docqa addition: cited statements that the cited source does not support (neither quoted from it nor sharing `CITATION_MIN_OVERLAP` of their terms with it); empty when every citation is supported.",
      }),
  },
  fallbackReason: {
    schema: z
      .enum(["empty_output", "unparseable_output", "empty_answer", "no_valid_citation", "answer_type", "stream_interrupted"])
      .nullable()
      .openapi({ description: "Why the extractive answer replaced the model's; null unless `answer_mode` is `extractive-fallback`." }),
  },
  model: {
    schema: z.string().nullable().openapi({ description: "Model that answered (`extractive` without a model).", example: "gpt-4o-mini" }),
  },
} satisfies { [Field in keyof ShownFields<PredictResultShape, "A">]?: WireFieldOverride };

/**
 * Set A's settings of `resultWireOf`: every field marked `onWire` for set A, in snake_case, with
 * {@link setAFields}; the spec's fields first in the spec's order ("Endpoint set A": `answer`,
 * `sources`, `query`, `original_query`, `input`, `thread_id`), docqa's additions after them in
 * the result schema's order. `input` is the one field set A computes itself: the spec's second
 * name of the query as received (`originalQuery`), given to `toWire` as `{ input }`. Use with
 * `resultWireOf({ result, ...predictResponseSettings })` over an extension of the result schema.
 */
export const predictResponseSettings = {
  set: "A",
  case: "snake_case",
  fields: setAFields,
  extra: { input: z.string() },
  leading: ["answer", "sources", "query", "original_query", "input", "thread_id"],
} satisfies Omit<ResultWireOptions<PredictResultShape, "A", "snake_case", { input: z.ZodString }>, "result">;

/** Set A's answer wire over `predictResultSchema` ({@link predictResponseSettings}); `predictResponse` maps with it. */
export const predictResponseWire: ResultWire<PredictResultShape, "A", "snake_case", { input: z.ZodString }> = resultWireOf({
  result: predictResultSchema,
  ...predictResponseSettings,
});

/** Response of `POST /predict`: {@link predictResponseWire}'s fields. */
export const predictResponseSchema = z.object(predictResponseWire.shape).openapi("PredictResponse");

/** Data of a `token` event of a streamed `/predict`: text the model wrote since the previous event. */
export const predictTokenEventSchema = z
  .object({ text: z.string().openapi({ description: "A preview of the model's output (fragments of the Answer JSON)." }) })
  .openapi("PredictTokenEvent");

/** Response of `POST /testpredict`. */
export const testPredictResponseSchema = predictResponseSchema
  .extend({ prediction_time: z.number().openapi({ description: "Seconds spent answering." }) })
  .openapi("TestPredictResponse");

/** A document of `POST /upsert` (spec "Document"). */
export const documentSchema = z
  .object({
    title: z.string(),
    content: z
      .string()
      .min(1)
      .regex(meaningfulTextPattern, "content must not be empty")
      .openapi({ description: "The document's text; not only white space." }),
    metadata: z
      .object({
        source: z.string().optional(),
        owner_id: z.string().optional(),
        acl: z.string().optional().openapi({ example: "|user:_all_|" }),
        created_at: z.string().optional(),
      })
      .catchall(z.unknown())
      .optional(),
  })
  .openapi("Document");

/** Body of `POST /upsert`. */
export const upsertRequestSchema = z
  .object({
    user_email: z.string().min(1).openapi({ example: "ann@example.com" }),
    documents: z
      .record(z.string(), documentSchema)
      .refine((documents) => Object.keys(documents).length > 0, "documents must contain at least one document")
      .openapi({
        description:
          "Documents keyed by document id (1 to 512 characters, no control characters, not starting with `raptor:`); at least one.",
        minProperties: 1,
        ...({ propertyNames: { type: "string", pattern: documentIdPattern.source } } as object),
      }),
  })
  .openapi("UpsertRequest");

/** Response of `POST /upsert`. */
export const upsertResponseSchema = z
  .object({
    status: z.literal("success"),
    user: z.string(),
    num_chunks: z.string().openapi({ description: "Number of chunks stored, as a string.", example: "12" }),
  })
  .openapi("UpsertResponse");

/** Response of `GET /healthz`. */
export const healthResponseSchema = z
  .object({
    status: z.literal("ok"),
    detail: z
      .object({
        status: z.enum(["ok", "degraded"]),
        embeddings: z.object({ status: z.string(), model: z.string(), detail: z.string().optional() }),
        stores: z.object({ vector: z.string().nullable(), keyword: z.string() }),
        answerer: z.string(),
        chatModel: z
          .object({
            status: z.enum(["ready", "disabled", "loading"]),
            provider: z.string().optional(),
            model: z.string().optional(),
            detail: z.string().optional(),
          })
          .optional()
          .openapi({ description: "The chat model: `ready` with provider and model, or `disabled` with the reason in `detail`." }),
        reranker: z.string().nullable(),
        vectorIndexes: z
          .object({ otherModel: z.number().int(), reindexing: z.number().int(), detail: z.string().optional() })
          .optional()
          .openapi({
            description:
              "Organisations whose vector index holds another embedding model or none (served with that model when it can be loaded, else BM25 alone, until `docqa reindex`), and reindex jobs running in this process.",
          }),
      })
      .optional(),
  })
  .openapi("HealthResponse");

/** Error body: FastAPI's `{"detail": ...}` plus a stable `code`. */
export const errorResponseSchema = z
  .object({
    detail: z.union([
      z.string(),
      z.array(z.object({ type: z.string(), loc: z.array(z.union([z.string(), z.number()])), msg: z.string() })),
    ]),
    code: z.string().openapi({ example: "invalid_request" }),
  })
  .openapi("ErrorResponse");

/**
 * The OpenAPI schema of one Server-Sent Event of a streamed prediction whose `final` data is the
 * component `finalComponent` (`PredictResponse`, `TestPredictResponse`). Before OpenAPI 3.2
 * (`itemSchema`), the `schema` of a `text/event-stream` media type describes one event, as
 * Schemathesis reads it: an object with the event's name and its `data` text, whose JSON content
 * is described by `contentMediaType` and `contentSchema` (JSON Schema 2020-12, section 8).
 */
export function streamEventJsonSchema(finalComponent: "PredictResponse" | "TestPredictResponse") {
  const event = (name: string, dataComponent: string, description: string) => ({
    type: "object" as const,
    description,
    properties: {
      event: { type: "string" as const, enum: [name] },
      data: {
        type: "string" as const,
        contentMediaType: "application/json",
        contentSchema: { $ref: `#/components/schemas/${dataComponent}` },
      },
      id: { type: "string" as const },
      retry: { type: "integer" as const },
    },
    required: ["event", "data"],
  });
  return {
    oneOf: [
      event("token", "PredictTokenEvent", "Text the model wrote since the previous event (a preview)."),
      event("final", finalComponent, "The JSON body; the last event of a successful stream."),
      event("error", "ErrorResponse", "The failure after the first event; the last event of a failed stream."),
    ],
    description:
      "One Server-Sent Event of a streamed answer: `token` events, then one `final` event whose data is the JSON body; a failure after the first event ends the stream with an `error` event (`{detail, code}`).",
  };
}
