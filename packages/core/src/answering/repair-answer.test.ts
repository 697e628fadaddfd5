import { describe, expect, it } from "vitest";
import type { Answer } from "./answer.js";
import { repairAnswer } from "./repair-answer.js";

const answer: Answer = {
  callout_answer: "Ten days [Source: doc_1]",
  positive_list: ["Accrues monthly [Source: doc_1]"],
  negative_list: ["Not for contractors [Source: doc_2]"],
  info_list: [],
  keywords: ["vacation"],
};
const json = JSON.stringify(answer);

describe("repairAnswer", () => {
  it("accepts a well-formed object without repairs", () => {
    expect(repairAnswer(answer)).toEqual({ ok: true, answer, repairs: [] });
    expect(repairAnswer(json)).toEqual({ ok: true, answer, repairs: [] });
  });

  it("decodes JSON encoded as a string, once or twice", () => {
    expect(repairAnswer(JSON.stringify(json))).toEqual({ ok: true, answer, repairs: ["json_string"] });
    expect(repairAnswer(JSON.stringify(JSON.stringify(json)))).toEqual({ ok: true, answer, repairs: ["json_string"] });
  });

  it("unwraps a markdown fence, with or without a language and surrounding prose", () => {
    expect(repairAnswer(`\`\`\`json\n${json}\n\`\`\``)).toEqual({ ok: true, answer, repairs: ["markdown_fence"] });
    expect(repairAnswer(`Sure! Here it is:\n\`\`\`\n${JSON.stringify(answer, null, 2)}\n\`\`\`\nHope it helps.`)).toEqual({
      ok: true,
      answer,
      repairs: ["markdown_fence"],
    });
  });

  it("keeps fenced code inside the answer's strings, bare or in a fenced reply", () => {
    const withCode: Answer = { ...answer, callout_answer: "Build it:\n```console\n$ cargo build --release\n```\n[Source: doc_1]" };
    const text = JSON.stringify(withCode);
    expect(repairAnswer(text)).toEqual({ ok: true, answer: withCode, repairs: [] });
    expect(repairAnswer(`\`\`\`json\n${JSON.stringify(withCode, null, 2)}\n\`\`\``)).toEqual({
      ok: true,
      answer: withCode,
      repairs: ["embedded_object"],
    });
  });

  it("extracts one object from surrounding prose", () => {
    expect(repairAnswer(`The answer is ${json} as requested.`)).toEqual({ ok: true, answer, repairs: ["embedded_object"] });
  });

  it("unwraps a single-key wrapper and a one-element array", () => {
    expect(repairAnswer({ answer })).toEqual({ ok: true, answer, repairs: ["unwrapped"] });
    expect(repairAnswer([answer])).toEqual({ ok: true, answer, repairs: ["unwrapped"] });
  });

  it("takes the answer written as JSON inside callout_answer", () => {
    expect(repairAnswer({ callout_answer: json, positive_list: [], negative_list: [], info_list: [], keywords: [] })).toEqual({
      ok: true,
      answer,
      repairs: ["nested_answer"],
    });
  });

  it("fills missing and null lists with empty lists", () => {
    expect(repairAnswer({ callout_answer: " Ten days [Source: doc_1] ", positive_list: null })).toEqual({
      ok: true,
      answer: { callout_answer: "Ten days [Source: doc_1]", positive_list: [], negative_list: [], info_list: [], keywords: [] },
      repairs: ["missing_fields"],
    });
  });

  it("coerces a string list to one item, numbers to strings, and drops other items and blanks", () => {
    expect(
      repairAnswer({
        callout_answer: "Ten days [Source: doc_1]",
        positive_list: "Accrues monthly [Source: doc_1]",
        negative_list: [42, { nested: true }, "  ", "Not for contractors"],
        info_list: [],
        keywords: { vacation: 1 },
      }),
    ).toEqual({
      ok: true,
      answer: {
        callout_answer: "Ten days [Source: doc_1]",
        positive_list: ["Accrues monthly [Source: doc_1]"],
        negative_list: ["42", "Not for contractors"],
        info_list: [],
        keywords: [],
      },
      repairs: ["coerced_fields"],
    });
  });

  it("reports empty output, unparseable output and an empty answer", () => {
    expect(repairAnswer(undefined)).toEqual({ ok: false, reason: "empty_output", detail: "the model returned no output", repairs: [] });
    expect(repairAnswer("  \n ")).toEqual({ ok: false, reason: "empty_output", detail: "the model returned empty text", repairs: [] });
    expect(repairAnswer("I think it is ten days.")).toEqual({
      ok: false,
      reason: "unparseable_output",
      detail: "the model's output is not JSON: I think it is ten days.",
      repairs: [],
    });
    expect(repairAnswer(42)).toEqual({
      ok: false,
      reason: "unparseable_output",
      detail: "the model returned a number, not an object",
      repairs: [],
    });
    expect(repairAnswer({ ...answer, callout_answer: "" })).toEqual({
      ok: false,
      reason: "empty_answer",
      detail: "the model's callout_answer is empty",
      repairs: [],
    });
    expect(repairAnswer({})).toEqual({
      ok: false,
      reason: "empty_answer",
      detail: "the model's callout_answer is empty",
      repairs: ["missing_fields"],
    });
  });

  it("does not mutate its input", () => {
    const input = { callout_answer: " x ", positive_list: ["  a "] };
    const copy = structuredClone(input);
    repairAnswer(input);
    expect(input).toEqual(copy);
  });
  describe("an output cut before its end", () => {
    const full = JSON.stringify({ ...answer, positive_list: ["Accrues monthly [Source: doc_1]", "Carries over [Source: doc_1]"] });
    const cutAt = (marker: string) => full.slice(0, full.indexOf(marker) + marker.length);

    it("keeps the fields and list items that closed, and drops the item the cut fell inside", () => {
      expect(repairAnswer(cutAt("Carries o"))).toEqual({
        ok: true,
        answer: { ...answer, positive_list: ["Accrues monthly [Source: doc_1]"], negative_list: [], keywords: [] },
        repairs: ["truncated_output", "missing_fields"],
      });
    });

    it("keeps every string when the cut falls between tokens", () => {
      for (const marker of [
        '"positive_list":',
        '"positive_list":[',
        '"Accrues monthly [Source: doc_1]"',
        '"Accrues monthly [Source: doc_1]",',
      ]) {
        const outcome = repairAnswer(cutAt(marker));
        expect(outcome.ok && outcome.answer.callout_answer).toBe(answer.callout_answer);
        expect(outcome.repairs).toContain("truncated_output");
      }
    });

    it("drops a field whose name was cut", () => {
      const outcome = repairAnswer(cutAt('"positive_li'));
      expect(outcome).toMatchObject({ ok: true, answer: { callout_answer: answer.callout_answer, positive_list: [] } });
    });

    it("does not keep a callout that was cut, nor one cut inside an escape", () => {
      for (const text of [cutAt("Ten da"), '{"callout_answer": "Ten days\\', '{"callout_answer": "Ten \\u00']) {
        expect(repairAnswer(text)).toMatchObject({ ok: false, reason: "unparseable_output" });
      }
    });

    it("salvages a fenced or introduced output, and drops the repeated items of a looping list", () => {
      const looping = `\`\`\`json\n{"callout_answer": "Ten days [Source: doc_1]", "keywords": ["leave", "Leave", "leave ", "leave", "lea`;
      expect(repairAnswer(`Here it is: ${looping}`)).toEqual({
        ok: true,
        answer: { callout_answer: "Ten days [Source: doc_1]", positive_list: [], negative_list: [], info_list: [], keywords: ["leave"] },
        repairs: ["truncated_output", "missing_fields"],
      });
    });

    it("still reports text without an object in it as unparseable", () => {
      expect(repairAnswer("I could not find it {")).toMatchObject({ ok: false, reason: "unparseable_output" });
      expect(repairAnswer('["a", "b')).toMatchObject({ ok: false, reason: "unparseable_output" });
    });
  });
});
