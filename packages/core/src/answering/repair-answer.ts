/**
 * Repair of a model's structured output into the spec's Answer object (spec `POST /predict`
 * step 8: "parse a JSON-string answer into an object"). Models misbehave in known ways; each
 * repair below is applied only when needed and recorded, so logs show how often it happens.
 *
 * Accepted inputs, in order:
 * 1. an object (tool-call arguments, a parsed JSON reply);
 * 2. a string holding JSON, possibly encoded twice (`"{\"callout_answer\": …}"`): `json_string`;
 * 3. JSON inside a markdown fence (```` ```json … ``` ````): `markdown_fence`;
 * 4. prose around one JSON object (from the first `{` to the last `}`): `embedded_object`;
 * 5. an object wrapped in one key (`{"answer": {…}}`) or in a one-element array: `unwrapped`;
 * 6. the whole answer JSON written inside `callout_answer`: `nested_answer`;
 * 7. an object cut before its end (a stream stopped because the output looped, or a reply cut at
 *    the token limit): `truncated_output`. The text from the first `{` is parsed as a partial
 *    JSON object (`parsePartialJson` of `@langchain/core`, which closes what is open) and the
 *    string the cut fell inside is dropped, since its end is missing: a list item that was being
 *    written goes, the items before it stay; a callout that was being written goes, and with it the
 *    whole output (`unparseable_output`). Where the cut fell inside a string is found by parsing
 *    the text once more with a private-use marker character appended: the string that holds the
 *    marker is the one that was cut.
 *
 * Then the fields are normalised: a missing or null list becomes `[]` (`missing_fields`); a
 * string where a list is expected becomes a one-item list, numbers become strings, and
 * non-string list items are dropped (`coerced_fields`); strings are trimmed and empty items
 * dropped, and a list item equal to an earlier one (ignoring case and spacing) is dropped, since a
 * model that loops repeats items. Unknown fields are ignored.
 *
 * Not repairable (the answerer then falls back to the extractive answer): no output at all
 * (`empty_output`), output with no JSON object in it (`unparseable_output`), and an empty
 * `callout_answer` (`empty_answer`): a callout is required, since it is the answer.
 */
import { parsePartialJson } from "@langchain/core/output_parsers";
import type { Answer } from "./answer.js";

/** A repair {@link repairAnswer} applied. */
export type AnswerRepair =
  | "json_string"
  | "markdown_fence"
  | "embedded_object"
  | "unwrapped"
  | "nested_answer"
  | "truncated_output"
  | "missing_fields"
  | "coerced_fields";

/** Why an output could not be repaired. */
export type UnrepairableReason = "empty_output" | "unparseable_output" | "empty_answer";

/** Outcome of {@link repairAnswer}. */
export type RepairOutcome =
  | { ok: true; answer: Answer; repairs: AnswerRepair[] }
  | { ok: false; reason: UnrepairableReason; detail: string; repairs: AnswerRepair[] };

const fencePattern = /```[ \t]*(?:json|JSON)?[ \t]*\r?\n?([\s\S]*?)\r?\n?[ \t]*```/;

/**
 * Turns a model's output into an Answer, or says why it cannot.
 *
 * @param output - the parsed structured output, tool-call arguments, or the raw text.
 * @example
 * ```ts
 * repairAnswer('```json\n{"callout_answer": "Ten days [Source: doc_1]"}\n```');
 * // { ok: true, answer: { callout_answer: "Ten days [Source: doc_1]", positive_list: [], ... },
 * //   repairs: ["markdown_fence", "missing_fields"] }
 * ```
 */
export function repairAnswer(output: unknown): RepairOutcome {
  const repairs: AnswerRepair[] = [];
  const note = (repair: AnswerRepair) => {
    if (!repairs.includes(repair)) repairs.push(repair);
  };
  const decoded = decodeObject(output, note);
  if (!decoded.ok) return { ...decoded, repairs };
  let record = unwrap(decoded.value, note);

  // The whole answer written as JSON inside callout_answer.
  if (typeof record.callout_answer === "string" && record.callout_answer.trim().startsWith("{")) {
    const inner = decodeObject(record.callout_answer, () => {});
    if (inner.ok && "callout_answer" in inner.value) {
      record = inner.value;
      note("nested_answer");
    }
  }

  const callout = textOf(record.callout_answer, note);
  const answer: Answer = {
    callout_answer: callout,
    positive_list: listOf(record.positive_list, note),
    negative_list: listOf(record.negative_list, note),
    info_list: listOf(record.info_list, note),
    keywords: listOf(record.keywords, note),
  };
  if (callout === "") {
    return { ok: false, reason: "empty_answer", detail: "the model's callout_answer is empty", repairs };
  }
  return { ok: true, answer, repairs };
}

type Decoded = { ok: true; value: Record<string, unknown> } | { ok: false; reason: UnrepairableReason; detail: string };

/** Decodes `output` to a plain object through strings, fences and surrounding prose. */
function decodeObject(output: unknown, note: (repair: AnswerRepair) => void): Decoded {
  let value = output;
  for (let depth = 0; depth < 4; depth++) {
    if (isRecord(value)) return { ok: true, value };
    if (Array.isArray(value) && value.length === 1 && isRecord(value[0])) {
      note("unwrapped");
      return { ok: true, value: value[0] };
    }
    if (typeof value !== "string") {
      return value === undefined || value === null
        ? { ok: false, reason: "empty_output", detail: "the model returned no output" }
        : {
            ok: false,
            reason: "unparseable_output",
            detail: `the model returned a ${Array.isArray(value) ? "list" : typeof value}, not an object`,
          };
    }
    const text = value.replace(/^\uFEFF/, "").trim();
    if (text === "") return { ok: false, reason: "empty_output", detail: "the model returned empty text" };
    // JSON first: an answer's strings may hold fenced code themselves ("Run:\n```console\n$ cargo build\n```"),
    // then JSON inside a fence.
    let parsed = parseJson(text);
    const fenced = parsed.ok ? null : fencePattern.exec(text);
    if (fenced) {
      const inner = parseJson((fenced[1] ?? "").trim());
      if (inner.ok) {
        note("markdown_fence");
        parsed = inner;
      }
    }
    if (parsed.ok) {
      if (typeof parsed.value === "string") note("json_string");
      value = parsed.value;
      continue;
    }
    const start = text.indexOf("{");
    const end = text.lastIndexOf("}");
    const embedded = start >= 0 && end > start ? parseJson(text.slice(start, end + 1)) : undefined;
    if (embedded?.ok && isRecord(embedded.value)) {
      note("embedded_object");
      return { ok: true, value: embedded.value };
    }
    const truncated = start >= 0 ? parseTruncatedObject(text.slice(start)) : undefined;
    if (truncated) {
      note("truncated_output");
      return { ok: true, value: truncated };
    }
    return { ok: false, reason: "unparseable_output", detail: `the model's output is not JSON: ${preview(text)}` };
  }
  return { ok: false, reason: "unparseable_output", detail: "the model's output is JSON encoded too many times" };
}

/** Appended to a cut output to find the string the cut fell inside (a private-use character: no model writes it). */
const cutMarker = "\uE000";

/**
 * The object of a JSON text cut before its end, without the string the cut fell inside; undefined
 * when the text is not the start of one object.
 */
function parseTruncatedObject(text: string): Record<string, unknown> | undefined {
  // An escape sequence cut short (`\`, `\u00`) would swallow the marker: it is removed first.
  const cutEscape = /(\\+)(u[0-9a-fA-F]{0,3})?$/.exec(text);
  const body = cutEscape?.[1] && cutEscape[1].length % 2 === 1 ? text.slice(0, cutEscape.index + cutEscape[1].length - 1) : text;
  const marked: unknown = parsePartialJson(body + cutMarker);
  // The cut fell between tokens (after a comma or a colon), where the marker is not valid: every string is whole.
  const object: unknown = isRecord(marked) ? withoutCutStrings(marked) : parsePartialJson(body);
  return isRecord(object) && Object.keys(object).length > 0 ? object : undefined;
}

/** `value` without the strings holding {@link cutMarker}: list items and object fields alike. */
function withoutCutStrings(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((item) => !isCut(item)).map(withoutCutStrings);
  if (!isRecord(value)) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key, item]) => !key.includes(cutMarker) && !isCut(item))
      .map(([key, item]) => [key, withoutCutStrings(item)]),
  );
}

function isCut(value: unknown): boolean {
  return typeof value === "string" && value.includes(cutMarker);
}

/** `{"answer": {...}}` and similar single-key wrappers around the answer object. */
function unwrap(record: Record<string, unknown>, note: (repair: AnswerRepair) => void): Record<string, unknown> {
  if ("callout_answer" in record) return record;
  const values = Object.values(record);
  if (values.length === 1 && isRecord(values[0]) && "callout_answer" in values[0]) {
    note("unwrapped");
    return values[0];
  }
  return record;
}

function textOf(value: unknown, note: (repair: AnswerRepair) => void): string {
  if (typeof value === "string") return value.trim();
  if (value === undefined || value === null) {
    note("missing_fields");
    return "";
  }
  note("coerced_fields");
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value))
    return value
      .filter((item) => typeof item === "string")
      .join(" ")
      .trim();
  return "";
}

function listOf(value: unknown, note: (repair: AnswerRepair) => void): string[] {
  if (value === undefined || value === null) {
    note("missing_fields");
    return [];
  }
  if (typeof value === "string") {
    note("coerced_fields");
    return value.trim() === "" ? [] : [value.trim()];
  }
  if (!Array.isArray(value)) {
    note("coerced_fields");
    return [];
  }
  const items: string[] = [];
  const seen = new Set<string>();
  const add = (item: string) => {
    const key = item.toLowerCase().replace(/\s+/g, " ");
    if (item === "" || seen.has(key)) return;
    seen.add(key);
    items.push(item);
  };
  for (const item of value) {
    if (typeof item === "string") {
      add(item.trim());
    } else if (typeof item === "number" || typeof item === "boolean") {
      note("coerced_fields");
      add(String(item));
    } else {
      note("coerced_fields");
    }
  }
  return items;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function preview(text: string): string {
  const flat = text.replace(/\s+/g, " ");
  return flat.length > 80 ? `${flat.slice(0, 80)}…` : flat;
}
