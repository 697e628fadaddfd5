import { onWire, predictResultSchema } from "@docqa/core";
import { createTestService } from "@docqa/core/testing";
import { resultWireOf } from "@docqa/http";
import { schemaProblems } from "@docqa/http/testing";
import { OpenAPIHono, z } from "@hono/zod-openapi";
import { afterAll, describe, expect, expectTypeOf, it } from "vitest";
import { predictResponse } from "./predict-routes.js";
import { predictResponseSettings, predictResponseWire } from "./schemas.js";

/** The result schema with one more answer field, marked for both sets: all a newcomer writes in the core. */
const extended = predictResultSchema.extend({
  answerLength: onWire(z.number().int(), { sets: ["A", "B"], description: "Characters of the callout answer." }),
});

const service = createTestService();
afterAll(() => service.close());

/** The result of the test service asked one question over one document. */
async function answered() {
  const principal = { userName: "ann@a.example", roles: [], groups: [] };
  const documents = { d: { title: "Leave", content: "Staff get 25 days." } };
  await service.upsert({ orgId: "o", principal, uploader: principal.userName, documents });
  return service.predict({ orgId: "o", principal, query: "How many days do staff get?" });
}

describe("set A's answer wire", () => {
  it("carries a result field marked for set A as snake_case, in its schema, its OpenAPI component and its body", async () => {
    const result = await answered();
    const wire = resultWireOf({ result: extended, ...predictResponseSettings });
    expect(Object.keys(wire.shape)).toEqual([...Object.keys(predictResponseWire.shape), "answer_length"]);
    const body = wire.toWire({ ...result, answerLength: result.answer.callout_answer.length }, { input: result.originalQuery });
    expectTypeOf(body.answer_length).toEqualTypeOf<number>();
    expect(body).toEqual({ ...predictResponse(result), answer_length: "Staff get 25 days. [Source: doc_1]".length });

    const app = new OpenAPIHono();
    app.openAPIRegistry.register("ExtendedPredictResponse", z.object(wire.shape).openapi("ExtendedPredictResponse"));
    const document = app.getOpenAPI31Document({ openapi: "3.1.0", info: { title: "set A", version: "1" } });
    const schema = document.components?.schemas?.ExtendedPredictResponse as { properties: Record<string, unknown>; required: string[] };
    expect(schema.properties.answer_length).toEqual({ type: "integer", description: "Characters of the callout answer." });
    expect(schema.required).toContain("answer_length");
    expect(schemaProblems(schema, body, document as unknown as Record<string, unknown>)).toEqual([]);
  });

  it("keeps the spec's fields first, in the spec's order, and reports the query as received twice", async () => {
    expect(Object.keys(predictResponseWire.shape).slice(0, 6)).toEqual([
      "answer",
      "sources",
      "query",
      "original_query",
      "input",
      "thread_id",
    ]);
    const body = predictResponse({ ...(await answered()), originalQuery: "  How many days do staff get? " });
    expect([body.original_query, body.input]).toEqual(["  How many days do staff get? ", "  How many days do staff get? "]);
  });
});
