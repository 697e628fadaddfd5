/**
 * The documents API, written once and mounted by both endpoint sets: `GET <path>` (a page of the
 * documents the user may read), `GET <path>/{id}` (one document's metadata) and
 * `DELETE <path>/{id}` (a document with everything built from it). Each set passes its path, the
 * name of its id parameter and its wire shapes ({@link DocumentsWire}: the zod schemas and the
 * mapping from the service's results), and its OpenAPI responses ({@link SetResponses}); the
 * routes call one service method each, as every route does.
 */
import { DocqaError, type DocumentList, type DocumentSummary, type RagService } from "@docqa/core";
import type { DeleteDocumentsResult } from "@docqa/core/ingestion";
import { createRoute, type OpenAPIHono, type z } from "@hono/zod-openapi";
import type { AuthenticatedRoute, DocqaEnv } from "./create-docqa-app.js";
import { requestIdHeadersSchema } from "./create-docqa-app.js";
import {
  type DocumentFieldNames,
  documentListOf,
  documentListQueryOf,
  documentParams,
  storedDocumentOf,
  storedDocumentSchemaOf,
} from "./document-schemas.js";
import type { SetResponses } from "./openapi-responses.js";

/** The zod schema of a path or query: an object, as `createRoute` wants for `params` and `query`. */
type ObjectSchema = z.ZodObject<z.ZodRawShape>;

/**
 * A set's wire shapes of the documents API: the schemas its OpenAPI document shows and the
 * mapping of the service's results onto them (set A snake_case, set B camelCase).
 *
 * @typeParam Stored - one document's body; `List` the list's body; `Deleted` the delete's body.
 */
export interface DocumentsWire<Stored extends z.ZodType, List extends z.ZodType, Deleted extends z.ZodType> {
  /** Path of the list route, for example `/documents`; one document is `<path>/{<idParam>}`. */
  path: string;
  /** Name of the document id path parameter (`doc_id` in set A, `id` in set B); `params` declares it. */
  idParam: string;
  /** Query of the list route: `source`, `type`, `owner`, `limit` (1 to 1000) and `cursor`. */
  listQuery: ObjectSchema;
  /** Path parameters of the one-document routes: `idParam`, a string of at least one character. */
  params: ObjectSchema;
  /** Body of `GET <path>/{id}` and an item of the list. */
  stored: Stored;
  /** Body of `GET <path>`. */
  list: List;
  /** Body of `DELETE <path>/{id}`. */
  deleted: Deleted;
  /** One document in the set's field names. */
  storedDocument(document: DocumentSummary): z.input<Stored>;
  /** A page of documents, each mapped with `storedDocument`. */
  page(page: DocumentList): z.input<List>;
  /** What a deletion removed. */
  deletion(docId: string, result: DeleteDocumentsResult): z.input<Deleted>;
}

/** Settings of {@link documentsWireOf}: what differs between the sets. */
export interface DocumentsWireSettings<N extends DocumentFieldNames, Deleted extends z.ZodType> {
  /** Path of the list route, for example `/documents`. */
  path: string;
  /** The set's field names; `names.id` is also the path parameter's. */
  names: N;
  /** The schema of the document id field (its description is the set's). */
  id: z.ZodString;
  /** The description of the list's `type` filter. */
  typeDescription: string;
  /** Body of `DELETE <path>/{id}` (its shape is the set's). */
  deleted: Deleted;
  /** What a deletion removed, in `deleted`'s shape. */
  deletion(docId: string, result: DeleteDocumentsResult): z.input<Deleted>;
}

/**
 * A set's {@link DocumentsWire} derived from the schemas of `document-schemas.ts` under the set's
 * field names; its `stored`, `list`, `listQuery` and `params` are the set's exported schemas.
 *
 * @example
 * ```ts
 * const names = { id: "id", owner: "owner", chunks: "chunks", updatedAt: "updatedAt", nextCursor: "nextCursor" } as const;
 * export const setBDocuments = documentsWireOf({ path: "/api/documents", names, id: z.string(), typeDescription: "...", deleted, deletion });
 * ```
 */
export function documentsWireOf<const N extends DocumentFieldNames, Deleted extends z.ZodType>(
  settings: DocumentsWireSettings<N, Deleted>,
) {
  const { names } = settings;
  const stored = storedDocumentSchemaOf(names, settings.id);
  const list = documentListOf(names, stored);
  const storedDocument = storedDocumentOf(names);
  return {
    path: settings.path,
    idParam: names.id,
    listQuery: documentListQueryOf(names, settings.typeDescription),
    params: documentParams(names.id),
    stored,
    list,
    deleted: settings.deleted,
    storedDocument,
    page: (page: DocumentList) =>
      ({ documents: page.documents.map(storedDocument), [names.nextCursor]: page.nextCursor }) as z.input<typeof list>,
    deletion: settings.deletion,
  } satisfies DocumentsWire<typeof stored, typeof list, Deleted>;
}

/** Options of {@link addDocumentRoutes}. */
export interface DocumentRoutesOptions<Stored extends z.ZodType, List extends z.ZodType, Deleted extends z.ZodType> {
  /** The set's wire shapes and paths. */
  wire: DocumentsWire<Stored, List, Deleted>;
  /** The set's OpenAPI responses (error body, JSON responses, the errors of authenticated routes). */
  responses: SetResponses;
  /** `createDocqaApp`'s `authenticated`: every documents route takes the bearer token. */
  authenticated: AuthenticatedRoute;
  /** Component named in errors, for example `predict-api`. */
  component: string;
}

/** The query of the list route as `listQuery` parses it. */
interface ListQuery {
  source?: string | undefined;
  type?: string | undefined;
  owner?: string | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

/**
 * Adds the documents API to a set's app: list, show and delete, each authenticated.
 *
 * @throws {DocqaError} (answered by the app's error handler) `not_found` when the document is
 *   missing or not readable (show) or missing (delete); `forbidden` when the user may not delete
 *   it; `store_unavailable`.
 * @example
 * ```ts
 * const { app, authenticated } = createDocqaApp({ ... });
 * addDocumentRoutes(app, service, { wire: setADocuments, responses: setAResponses, authenticated, component: "predict-api" });
 * ```
 */
export function addDocumentRoutes<Stored extends z.ZodType, List extends z.ZodType, Deleted extends z.ZodType>(
  app: OpenAPIHono<DocqaEnv>,
  service: Pick<RagService, "listDocuments" | "getDocument" | "deleteDocument">,
  options: DocumentRoutesOptions<Stored, List, Deleted>,
): void {
  const { wire, responses, authenticated, component } = options;
  const { errorContent, jsonResponse, errors } = responses;
  const documentPath = `${wire.path}/{${wire.idParam}}`;
  const docIdOf = (params: unknown): string => (params as Record<string, string>)[wire.idParam] ?? "";

  app.openapi(
    createRoute({
      method: "get",
      path: wire.path,
      summary: "List documents",
      description: `The documents of the token's organisation the user may read under the seven rules (every document for administrators), in \`${wire.idParam}\` order, paged with \`cursor\`, filtered by \`source\`, \`type\` and \`owner\`. Metadata only.`,
      ...authenticated,
      request: { query: wire.listQuery, headers: requestIdHeadersSchema },
      responses: { 200: jsonResponse(wire.list, "One page of documents."), ...errors },
    }),
    async (c) => {
      const query = c.req.valid("query") as ListQuery;
      const auth = c.get("auth");
      const page = await service.listDocuments({
        orgId: auth.orgId,
        principal: auth.principal,
        source: query.source,
        type: query.type,
        ownerId: query.owner,
        limit: query.limit,
        cursor: query.cursor,
        requestId: c.req.header("X-Request-Id"),
      });
      return c.json(wire.page(page) as object, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: documentPath,
      summary: "Show a document",
      description:
        "A document the user may read (any for administrators). A document the user may not read answers 404, like a missing one.",
      ...authenticated,
      request: { params: wire.params },
      responses: {
        200: jsonResponse(wire.stored, "The document."),
        404: errorContent("No such document, or one the user may not read (`not_found`)."),
        ...errors,
      },
    }),
    async (c) => {
      const docId = docIdOf(c.req.valid("param"));
      const auth = c.get("auth");
      const document = await service.getDocument({ orgId: auth.orgId, principal: auth.principal }, docId);
      if (!document) throw new DocqaError("not_found", `no document ${JSON.stringify(docId)} in this organisation`, { component });
      return c.json(wire.storedDocument(document) as object, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: documentPath,
      summary: "Delete a document",
      description:
        "Deletes a document with every chunk, vector, full-text entry and summary node built from it. Only its owner or an administrator (`ADMIN_ROLES`) may; anybody else gets 403 `forbidden`.",
      ...authenticated,
      request: { params: wire.params, headers: requestIdHeadersSchema },
      responses: {
        200: jsonResponse(wire.deleted, "The document is deleted."),
        // A set whose authenticated routes already declare a 403 keeps its description.
        403:
          errors[403] ??
          errorContent("The user neither owns the document nor holds an administrative role (`forbidden`; nothing deleted)."),
        404: errorContent("No such document (`not_found`)."),
        ...errors,
      },
    }),
    async (c) => {
      const docId = docIdOf(c.req.valid("param"));
      const auth = c.get("auth");
      const result = await service.deleteDocument(
        { orgId: auth.orgId, principal: auth.principal, requestId: c.req.header("X-Request-Id") },
        docId,
      );
      return c.json(wire.deletion(docId, result) as object, 200);
    },
  );
}
