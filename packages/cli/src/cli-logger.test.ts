import { describe, expect, it } from "vitest";
import { createCliLogger } from "./cli-logger.js";

describe("createCliLogger", () => {
  it("writes an error with its component, message, code and stack; a warning without the stack; info only when verbose", () => {
    const lines: string[] = [];
    const logger = createCliLogger(false, (line) => lines.push(line));
    logger.error("unhandled error: boom", {
      component: "predict-api",
      code: "internal_error",
      stack: "Error: boom\n    at handler (app.js:1:1)",
    });
    logger.warn("the store is slow", { component: "stores", code: "store_unavailable", stack: "Error: slow" });
    logger.info("hidden");
    expect(lines).toEqual([
      "error [predict-api]: unhandled error: boom (internal_error)\n    Error: boom\n    at handler (app.js:1:1)\n",
      "warning [stores]: the store is slow (store_unavailable)\n",
    ]);
  });
});
