import { createHash } from "node:crypto";
import type { BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { answerSchema } from "../answering/answer.js";
import { handbookContext, handbookQuestion } from "../testing/handbook-context.js";
import {
  answerJsonSchema,
  answerMessages,
  condenseHistory,
  decompositionJsonSchema,
  decompositionMessages,
  intentJsonSchema,
  intentMessages,
  PROMPT_VERSION,
  withoutPromptTags,
} from "./prompts.js";

/**
 * SHA-256 of every prompt text and schema, per version. A change to any prompt must come with a
 * new PROMPT_VERSION: add its fingerprint here and update the snapshots with `-u`.
 */
const fingerprints: Record<string, string> = {
  "1": "c27b5280262e7ed48728cbeaf6c9776a274cde585197683a27a96ef0f3a17896",
  "2": "7a530d5210d3b4d7506c699eff6c465cf77ea0ecaa08d03b862424ca40f1d1dc",
};

const render = (messages: BaseMessage[]) => messages.map((message) => `--- ${message.getType()}\n${String(message.content)}`).join("\n");

const context = handbookContext();
const samples = {
  answer: render(answerMessages({ question: handbookQuestion, contextText: context.text })),
  answerWithHistoryAndSubqueries: render(
    answerMessages({
      question: "And how do I request them?",
      contextText: context.text,
      history: condenseHistory([{ question: handbookQuestion, answer: "Employees receive 25 vacation days per year. [Source: doc_1]" }]),
      subqueries: ["How many vacation days do employees get", "how do I request vacation days"],
    }),
  ),
  answerWithoutSources: render(answerMessages({ question: handbookQuestion, contextText: "" })),
  answerWithMatchedField: render(
    answerMessages({
      question: "When was Ada Quill born?",
      contextText: "[Source: doc_1]\nname: Ada Quill\nbirthday: 1815-12-10\nparty: Whig",
      matchedField: "Ada Quill: birthday = 1815-12-10 [Source: doc_1]",
    }),
  ),
  decomposition: render(decompositionMessages("How many vacation days do I get and how do I expense a trip?", 5)),
  intent: render(intentMessages("hello there")),
};

describe("prompts", () => {
  it.each(Object.entries(samples))("snapshot of the %s prompt", (_name, text) => {
    expect(`PROMPT_VERSION ${PROMPT_VERSION}\n${text}`).toMatchSnapshot();
  });

  it("snapshot of the output schemas", () => {
    expect({ answerJsonSchema, decompositionJsonSchema, intentJsonSchema }).toMatchSnapshot();
  });

  it("changes only with a new PROMPT_VERSION", () => {
    const all = JSON.stringify({ samples, answerJsonSchema, decompositionJsonSchema, intentJsonSchema });
    const fingerprint = createHash("sha256").update(all).digest("hex");
    expect(fingerprint, `prompts changed: bump PROMPT_VERSION (now ${PROMPT_VERSION}) and record ${fingerprint}`).toBe(
      fingerprints[PROMPT_VERSION],
    );
  });

  it("describes exactly the fields of the Answer schema, all required", () => {
    const fields = Object.keys(answerSchema.shape);
    expect(Object.keys(answerJsonSchema.properties as object)).toEqual(fields);
    expect(answerJsonSchema.required).toEqual(fields);
    expect(answerJsonSchema.additionalProperties).toBe(false);
  });

  it("puts the sources, conversation, sub-queries and question in this order", () => {
    const text = samples.answerWithHistoryAndSubqueries;
    const order = ["<sources>", "[Source: doc_1] Vacation policy", "<conversation>", "The question has these parts", "Question: And how"];
    const positions = order.map((marker) => text.indexOf(marker));
    expect(positions.every((position) => position >= 0)).toBe(true);
    expect([...positions].sort((left, right) => left - right)).toEqual(positions);
  });
});

describe("condenseHistory", () => {
  const turn = (index: number, answerLength = 20) => ({ question: `Question ${index}?`, answer: `A${index} `.padEnd(answerLength, "x") });

  it("keeps the last turns, oldest first, and cuts long questions and answers", () => {
    expect(condenseHistory([turn(1), turn(2), turn(3), turn(4)], { maxTurns: 2, maxMessageChars: 12 })).toBe(
      "User: Question 3?\nAssistant: A3 xxxxxxxxx…\nUser: Question 4?\nAssistant: A4 xxxxxxxxx…",
    );
    expect(condenseHistory([{ question: "A very long question indeed?", answer: "Yes." }], { maxMessageChars: 6 })).toBe(
      "User: A very…\nAssistant: Yes.",
    );
  });

  it("drops the oldest turns until the text fits", () => {
    const condensed = condenseHistory([turn(1, 200), turn(2, 200), turn(3, 200)], { maxChars: 500 });
    expect(condensed.startsWith("User: Question 2?")).toBe(true);
    expect(condensed.length).toBeLessThanOrEqual(500);
  });

  it("is empty without history", () => {
    expect(condenseHistory([])).toBe("");
  });
});

describe("withoutPromptTags", () => {
  it("removes the prompt's tags a model echoed and the brackets left beside a citation", () => {
    expect(withoutPromptTags("This is based on the information provided in <sources>[Source: doc_1]>.")).toBe(
      "This is based on the information provided in [Source: doc_1].",
    );
    expect(withoutPromptTags("<matched_field>Median: 48000</matched_field> [Source: doc_2]")).toBe("Median: 48000 [Source: doc_2]");
  });

  it("keeps other angle brackets", () => {
    expect(withoutPromptTags("A `Vec<T>` holds values; 3 < 4 > 2 [Source: doc_1].")).toBe(
      "A `Vec<T>` holds values; 3 < 4 > 2 [Source: doc_1].",
    );
  });
});
