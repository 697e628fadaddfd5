/**
 * Test support: an {@link AnswerRecord} with every field set, for tests of the figures and of the
 * results file. Not exported from the package.
 */
import type { AnswerRecord } from "./evaluate-answers.js";

/** An answered, answerable question citing one passage that holds its answer, changed by `fields`. */
export function answerRecord(fields: Partial<AnswerRecord> & { id: string }): AnswerRecord {
  return {
    type: "answer",
    question: `question ${fields.id}?`,
    answerable: true,
    answers: ["Paris"],
    hasGoldDocuments: true,
    callout: "The capital is Paris. [Source: doc_1]",
    lists: "",
    abstained: false,
    abstentionReason: null,
    abstentionCheck: null,
    answerMode: "extractive",
    fallbackReason: null,
    model: "extractive",
    citations: [{ key: "doc_1", docId: "france", holdsAnswer: true, goldDocument: true, summary: false }],
    calloutCitations: 1,
    retrieved: true,
    unsupportedCitations: 0,
    latencyMs: 10,
    generation: null,
    error: null,
    ...fields,
  };
}
