import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { DocqaError } from "@docqa/core";
import { describe, expect, it } from "vitest";
import { detectQuestionFormat, parseQuestions, readQuestions } from "./read-questions.js";

function thrown(run: () => unknown): DocqaError {
  try {
    run();
  } catch (error) {
    if (DocqaError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a DocqaError");
}

describe("detectQuestionFormat", () => {
  it("goes by extension, then by the first non-blank line", () => {
    expect(detectQuestionFormat("q.jsonl", "What?")).toBe("jsonl");
    expect(detectQuestionFormat("q.NDJSON", "")).toBe("jsonl");
    expect(detectQuestionFormat("q.csv", '{"a":1}')).toBe("csv");
    expect(detectQuestionFormat("q.txt", '\n  {"question": "x"}\n')).toBe("jsonl");
    expect(detectQuestionFormat("", "What, then?\n")).toBe("lines");
  });
});

describe("parseQuestions", () => {
  it("reads one question per line, skipping blank lines, with line numbers as ids", () => {
    expect(parseQuestions("\uFEFFHow many days?\r\n\r\n  Who approves travel?  \n", "lines", "q.txt")).toEqual([
      { id: "1", question: "How many days?" },
      { id: "3", question: "Who approves travel?" },
    ]);
  });

  it("reads JSON Lines with id, question, thread_id and user, and the _id/text names of BEIR and SQuAD files", () => {
    const content = [
      '{"id": "q1", "question": "How many days?", "thread_id": "0b9e5c2a-6f1d-4e8b-9a3c-7d2e1f4b5a60", "user": "bob@x.org"}',
      '{"_id": 7, "question": "Who?", "answers": ["Ann"]}',
      "",
      '{"text": "Where?"}',
    ].join("\n");
    expect(parseQuestions(content, "jsonl", "q.jsonl")).toEqual([
      { id: "q1", question: "How many days?", threadId: "0b9e5c2a-6f1d-4e8b-9a3c-7d2e1f4b5a60", user: "bob@x.org" },
      { id: "7", question: "Who?", threadId: undefined, user: undefined },
      { id: "4", question: "Where?", threadId: undefined, user: undefined },
    ]);
  });

  it("reads CSV with a header, quoted commas included, and ids from the row when there is no id column", () => {
    const content = 'Question,user\n"How many days, in total?",ann@x.org\nWho approves travel?,\n';
    expect(parseQuestions(content, "csv", "q.csv")).toEqual([
      { id: "2", question: "How many days, in total?", threadId: undefined, user: "ann@x.org" },
      { id: "3", question: "Who approves travel?", threadId: undefined, user: undefined },
    ]);
    expect(parseQuestions("id,question\na,First?\nb,Second?\n", "csv", "q.csv").map((question) => question.id)).toEqual(["a", "b"]);
  });

  it("names the line of each problem", () => {
    expect(thrown(() => parseQuestions('{"id": "a", "question": "ok"}\n{"id": "b", question}', "jsonl", "q.jsonl")).message).toMatch(
      /^\[docqa\] \[ask\] q\.jsonl line 2: not valid JSON/,
    );
    expect(thrown(() => parseQuestions('["a"]', "jsonl", "q.jsonl")).publicMessage).toBe(
      'q.jsonl line 1: expected a JSON object such as {"id": "q1", "question": "..."}',
    );
    expect(thrown(() => parseQuestions('{"id": "a", "question": "  "}', "jsonl", "q.jsonl")).publicMessage).toBe(
      'q.jsonl line 1: no question (give a non-empty "question" field)',
    );
    expect(thrown(() => parseQuestions("id,prompt\n1,What?\n", "csv", "q.csv")).publicMessage).toBe(
      'q.csv: the CSV header has no "question" column (columns: id, prompt)',
    );
    const duplicate = thrown(() => parseQuestions('{"id": "a", "question": "x"}\n{"id": "a", "question": "y"}', "jsonl", "q.jsonl"));
    expect(duplicate.code).toBe("invalid_request");
    expect(duplicate.publicMessage).toBe('q.jsonl: question id "a" is used twice (questions 1 and 2); ids must be unique');
  });
});

describe("readQuestions", () => {
  it("reads a file or standard input, and reports a missing file as not_found", async () => {
    const directory = mkdtempSync(join(tmpdir(), "docqa-questions-"));
    const file = join(directory, "questions.jsonl");
    writeFileSync(file, '{"id": "x", "question": "From a file?"}\n');
    expect(await readQuestions(file)).toEqual({
      format: "jsonl",
      questions: [{ id: "x", question: "From a file?", threadId: undefined, user: undefined }],
    });
    expect(await readQuestions("-", { stdin: Readable.from(["From standard input?\n", "And a second?"]) })).toEqual({
      format: "lines",
      questions: [
        { id: "1", question: "From standard input?" },
        { id: "2", question: "And a second?" },
      ],
    });
    const missing = (await readQuestions(join(directory, "absent.txt")).catch((error: unknown) => error)) as DocqaError;
    expect(missing.code).toBe("not_found");
    expect(missing.publicMessage).toBe(`questions file ${join(directory, "absent.txt")} does not exist`);
  });
});
