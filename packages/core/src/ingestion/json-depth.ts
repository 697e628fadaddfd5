/**
 * Nesting depth of parsed JSON, measured iteratively so that hostile input (a value nested
 * thousands of levels deep) can neither overflow the stack here nor reach code that recurses
 * (hashing, serialising) further on.
 */
import { DocqaError } from "../errors/docqa-error.js";

/**
 * The deepest nesting of arrays and objects in `value`: 0 for a scalar, 1 for an object or array
 * of scalars, one more per level inside. Stops early once `stopAbove` is exceeded.
 */
export function jsonDepth(value: unknown, stopAbove = Number.POSITIVE_INFINITY): number {
  let maximum = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number];
    if (typeof current !== "object" || current === null) continue;
    maximum = Math.max(maximum, depth);
    if (maximum > stopAbove) return maximum;
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
    }
  }
  return maximum;
}

/**
 * Checks that `value` is nested at most `maxDepth` levels deep (`MAX_JSON_DEPTH`).
 *
 * @param what - what the value is, for the message, for example `the request body`.
 * @throws {DocqaError} `json_too_deep` (HTTP 400) naming the limit.
 */
export function assertJsonDepth(value: unknown, maxDepth: number, what: string, component = "ingestion"): void {
  const depth = jsonDepth(value, maxDepth);
  if (depth > maxDepth) {
    throw new DocqaError("json_too_deep", `${what} is nested more than ${maxDepth} levels deep (MAX_JSON_DEPTH)`, { component });
  }
}
