import { DocqaError, onWire } from "@docqa/core";
import { OpenAPIHono, z } from "@hono/zod-openapi";
import { describe, expect, expectTypeOf, it } from "vitest";
import { resultWireOf, wireName } from "./result-wire.js";

/** A result schema of the core's form: marked fields, an unmarked one, and an object field with a marked child. */
const result = z.object({
  answerText: onWire(z.string(), { sets: ["A", "B"], description: "The answer.", example: "Yes." }),
  internalScore: z.number(),
  threadId: onWire(z.string(), { sets: ["A"] }),
  generation: z.object({ modelName: onWire(z.string().nullable(), { sets: ["A"], description: "The model." }), tokens: z.number() }),
});
const value: z.output<typeof result> = {
  answerText: "Yes.",
  internalScore: 0.4,
  threadId: "t-1",
  generation: { modelName: "m", tokens: 7 },
};

/** The OpenAPI 3.1 component `name` generated for `shape`. */
function component(name: string, shape: z.ZodRawShape): Record<string, unknown> {
  const app = new OpenAPIHono();
  app.openAPIRegistry.register(name, z.object(shape).openapi(name));
  const document = app.getOpenAPI31Document({ openapi: "3.1.0", info: { title: "test", version: "1" } });
  return document.components?.schemas?.[name] as Record<string, unknown>;
}

describe("wireName", () => {
  it("writes a result name in snake_case or camelCase", () => {
    expect(["originalQuery", "llmMs", "abstained"].map((name) => wireName(name, "snake_case"))).toEqual([
      "original_query",
      "llm_ms",
      "abstained",
    ]);
    expect(["originalQuery", "original_query", "num_ctx"].map((name) => wireName(name, "camelCase"))).toEqual([
      "originalQuery",
      "originalQuery",
      "numCtx",
    ]);
  });
});

describe("resultWireOf", () => {
  it("shows the fields marked for the set, nested ones at the top level, under snake_case names", () => {
    const wire = resultWireOf({ result, set: "A", case: "snake_case" });
    expect(Object.keys(wire.shape)).toEqual(["answer_text", "thread_id", "model_name"]);
    const body = wire.toWire(value, {});
    expect(body).toEqual({ answer_text: "Yes.", thread_id: "t-1", model_name: "m" });
    expect(Object.keys(body)).toEqual(["answer_text", "thread_id", "model_name"]);
    expectTypeOf(body.answer_text).toEqualTypeOf<string>();
    expectTypeOf(body.model_name).toEqualTypeOf<string | null>();
    expect(component("WireA", wire.shape)).toEqual({
      type: "object",
      properties: {
        answer_text: { type: "string", description: "The answer.", example: "Yes." },
        thread_id: { type: "string" },
        model_name: { type: ["string", "null"], description: "The model." },
      },
      required: ["answer_text", "thread_id", "model_name"],
    });
  });

  it("adds the set's own fields, puts the leading ones first, and applies the set's schemas and prose", () => {
    const wire = resultWireOf({
      result,
      set: "B",
      case: "camelCase",
      fields: { answerText: { description: "The answer, for set B." } },
      extra: { sessionId: z.string(), confidence: z.number().min(0).max(1) },
      leading: ["sessionId"],
    });
    const body = wire.toWire(value, { sessionId: "s-1", confidence: 0.5 });
    expect(Object.keys(body)).toEqual(["sessionId", "answerText", "confidence"]);
    expect(body).toEqual({ sessionId: "s-1", answerText: "Yes.", confidence: 0.5 });
    expectTypeOf(body).not.toHaveProperty("threadId");
    expect(component("WireB", wire.shape)).toMatchObject({
      properties: { answerText: { type: "string", description: "The answer, for set B.", example: "Yes." } },
    });
    const typed = resultWireOf({ result, set: "A", case: "snake_case", fields: { threadId: { schema: z.uuid() } } });
    expect(typed.shape.thread_id?.safeParse("t-1").success).toBe(false);
  });

  it("refuses two wire fields of one name and a leading name that is no field", () => {
    const clash = () => resultWireOf({ result, set: "B", case: "camelCase", extra: { answerText: z.string() } });
    expect(clash).toThrow(DocqaError);
    expect(clash).toThrow("set B has two wire fields named answerText");
    expect(() => resultWireOf({ result, set: "A", case: "snake_case", leading: ["input"] })).toThrow("set A has no wire field input");
  });

  it("does not mark the schema it was given", () => {
    const shared = z.string();
    const marked = onWire(shared, { sets: ["A"] });
    expect(marked).not.toBe(shared);
    const wire = resultWireOf({ result: z.object({ plain: shared, marked }), set: "A", case: "snake_case" });
    expect(Object.keys(wire.shape)).toEqual(["marked"]);
  });
});
