/**
 * Error bodies of set A: FastAPI's shape `{"detail": ...}` (existing clients were written
 * against a FastAPI service) plus a stable `code`. Body validation errors use FastAPI's detail
 * list (`type`, `loc`, `msg`) with status 400, as the spec's error table says ("400 Invalid
 * request parameters"), not FastAPI's 422. Statuses and codes come from `@docqa/http`'s
 * `createDocqaApp`.
 */
import type { DocqaErrorCode } from "@docqa/core";
import type { ErrorFormat } from "@docqa/http";
import type { ZodError } from "zod";

/** One FastAPI-style validation problem. */
export interface ValidationDetail {
  type: string;
  loc: (string | number)[];
  msg: string;
}

/** Maps zod issues to FastAPI's detail list, locating each under `body`. */
export function validationDetails(error: ZodError): ValidationDetail[] {
  return error.issues.map((issue) => ({
    type: issue.code === "invalid_type" && issue.message.includes("undefined") ? "missing" : issue.code,
    loc: ["body", ...issue.path.map((segment) => (typeof segment === "symbol" ? String(segment) : segment))],
    msg: issue.message,
  }));
}

/** A set A error body: `{"detail": "<message>", "code": "<code>"}`. */
export interface SetAErrorBody {
  detail: string;
  code: DocqaErrorCode;
}

/** Set A's {@link ErrorFormat}. */
export const setAErrors: ErrorFormat = {
  body: (code, message): SetAErrorBody => ({ detail: message, code }),
  validation: (error) => ({ detail: validationDetails(error), code: "invalid_request" satisfies DocqaErrorCode }),
  unsupportedMediaTypeMessage: () => "the request body must be JSON (Content-Type: application/json)",
  internalErrorMessage: "Internal Server Error",
};
