import { onWire, type PredictResult, predictResultSchema } from "@docqa/core";
import { createTestService } from "@docqa/core/testing";
import { resultWireOf } from "@docqa/http";
import { OpenAPIHono, z } from "@hono/zod-openapi";
import { beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import { chatResponseSettings, chatResponseWire } from "./schemas.js";

/** The result schema with one more answer field, marked for both sets: all a newcomer writes in the core. */
const extended = predictResultSchema.extend({
  answerLength: onWire(z.number().int(), { sets: ["A", "B"], description: "Characters of the callout answer." }),
});
const own = { response: "Staff get 25 days. [1]", sources: ["leave.md"], confidence: 0.5, sessionId: "s-1", unsupportedCitations: 0 };

let result: PredictResult;
beforeAll(async () => {
  const service = createTestService();
  const bob = { userName: "bob@b.example", roles: [], groups: [] };
  await service.upsert({
    orgId: "b",
    principal: bob,
    uploader: bob.userName,
    documents: { leave: { title: "Leave", content: "Staff get 25 days." } },
  });
  result = await service.predict({ orgId: "b", principal: bob, query: "How many days of leave?" });
  await service.close();
});

describe("set B's answer wire", () => {
  it("carries a result field marked for set B under its camelCase name, after the fields set B computes", () => {
    const wire = resultWireOf({ result: extended, ...chatResponseSettings });
    const body = wire.toWire({ ...result, answerLength: 34 }, own);
    expectTypeOf(body.answerLength).toEqualTypeOf<number>();
    expect(body).toEqual({ ...chatResponseWire.toWire(result, own), answerLength: 34 });
    expect(Object.keys(body)).toEqual([
      "response",
      "sources",
      "confidence",
      "sessionId",
      "abstained",
      "abstentionReason",
      "answerLength",
      "unsupportedCitations",
    ]);
    const app = new OpenAPIHono();
    app.openAPIRegistry.register("ExtendedChatResponse", z.object(wire.shape).openapi("ExtendedChatResponse"));
    const { components } = app.getOpenAPI31Document({ openapi: "3.1.0", info: { title: "set B", version: "1" } });
    expect(components?.schemas?.ExtendedChatResponse).toMatchObject({
      properties: { answerLength: { type: "integer", description: "Characters of the callout answer." } },
      required: expect.arrayContaining(["answerLength", "abstained"]),
    });
  });

  it("shows no field marked for set A alone", () => {
    expect(Object.keys(resultWireOf({ result: extended, ...chatResponseSettings }).shape)).not.toContain("threadId");
    expect(Object.keys(chatResponseWire.shape)).not.toContain("answerMode");
  });
});
