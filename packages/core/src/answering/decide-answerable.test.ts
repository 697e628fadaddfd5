import { describe, expect, it } from "vitest";
import { type ChunkRecord, chunkId } from "../stores/chunk-record.js";
import { createEnglishAnalyzer } from "../text/analyzer.js";
import { buildContext } from "./build-context.js";
import { type AbstentionSettings, decideAnswerable } from "./decide-answerable.js";
import { rankEvidence } from "./rank-evidence.js";

const analyzer = createEnglishAnalyzer();
const settings: AbstentionSettings = { minPassageCoverage: 0.3, minDense: 0.5, minSentenceCoverage: 0.15 };

function contextOf(...texts: string[]) {
  return buildContext(
    texts.map((text, index) => {
      const record: ChunkRecord = {
        id: chunkId(`d${index}`, 0),
        docId: `d${index}`,
        chunkIndex: 0,
        text,
        title: `D${index}`,
        source: "",
        ownerId: "",
        acl: "",
        metadata: {},
        contentHash: `d${index}`,
      };
      return { chunk: record, score: 1 - index / 10 };
    }),
    { maxDocChars: 4000, maxContextChars: 16000 },
  );
}

const handbook = contextOf(
  "New employees receive 20 vacation days in their first year. Unused days can be carried over.",
  "The most common form of travel is the train. The Normans built castles in Sicily.",
);

async function decide(question: string, context = handbook, overrides: Partial<AbstentionSettings> = {}) {
  const evidence = await rankEvidence(question, context, { analyzer });
  return decideAnswerable(question, evidence, { ...settings, ...overrides }, analyzer);
}

describe("decideAnswerable", () => {
  it("answers when a sentence covers the question", async () => {
    const decision = await decide("How many vacation days do new employees get?");
    expect(decision).toMatchObject({ answerable: true, reason: null, check: null });
    expect(decision.signals).toEqual({
      contextCoverage: 1,
      passageCoverage: 1,
      // vacation 0.58 − 0.45, employees 0.64 − 0.45, days 0.46 − 0.45; "new" (0.41) adds nothing.
      passageSpecificity: expect.closeTo(0.32, 2),
      sentenceCoverage: 1,
      expectedType: "number",
      answerTypeOffered: true,
      dense: null,
    });
  });

  it("abstains with no_documents on an empty context", async () => {
    expect(await decide("How many vacation days?", contextOf())).toMatchObject({
      answerable: false,
      reason: "no_documents",
      check: "no_context",
    });
  });

  it("abstains with low_relevance when the context holds too little of the question", async () => {
    const decision = await decide("How do I bake sourdough bread at home?");
    expect(decision).toMatchObject({ answerable: false, reason: "low_relevance", check: "passage_coverage" });
    expect(decision.signals.contextCoverage).toBe(0);
  });

  it("abstains with low_relevance when the best dense signal is below the threshold and the words state less than half", async () => {
    // "employees" and "train" match; "contract", "renewal", "rules" do not: under half the weight.
    const question = "What are the contract renewal rules for employees who travel by train?";
    const evidence = await rankEvidence(question, handbook, { analyzer });
    expect(evidence.sentences[0]?.coverage).toBeLessThan(0.5);
    const lenient = { ...settings, minPassageCoverage: 0 };
    for (const sentence of evidence.sentences) sentence.dense = 0.2;
    expect(decideAnswerable(question, evidence, lenient, analyzer)).toMatchObject({ reason: "low_relevance", check: "dense" });
    for (const sentence of evidence.sentences) sentence.dense = 0.6;
    expect(decideAnswerable(question, evidence, lenient, analyzer).check).not.toBe("dense");
  });

  it("judges relevance by the dense signal, not the passage's words, when a model is loaded", async () => {
    const question = "How do I bake sourdough bread at home?";
    const evidence = await rankEvidence(question, handbook, { analyzer });
    expect(decideAnswerable(question, evidence, settings, analyzer).check).toBe("passage_coverage");
    for (const sentence of evidence.sentences) sentence.dense = 0.7;
    expect(decideAnswerable(question, evidence, settings, analyzer).check).not.toBe("passage_coverage");
  });

  it("never abstains on the dense signal alone when the best sentence states the question", async () => {
    const question = "How many vacation days do new employees get?";
    const evidence = await rankEvidence(question, handbook, { analyzer });
    for (const sentence of evidence.sentences) sentence.dense = 0.1;
    expect(decideAnswerable(question, evidence, settings, analyzer)).toMatchObject({ answerable: true });
  });

  it("abstains with not_answerable when a name or number of the question occurs nowhere", async () => {
    expect(await decide("Did the Normans build castles in Sicily in 1130?")).toMatchObject({
      reason: "not_answerable",
      check: "missing_constraint",
      detail: "1130",
    });
    expect(await decide("Did the Vikings build castles in Sicily?")).toMatchObject({ check: "missing_constraint", detail: "vikings" });
  });

  it("asks the answering passage to meet a name only another passage mentions, but not the documents' subject", async () => {
    const context = contextOf(
      "Normans settled in Normandy. Rollo led the Norman raiders.",
      "The Normans conquered England in 1066. William was crowned king.",
      "Sicily was conquered by Roger. Vikings raided Paris.",
    );
    // "Vikings" is only in the third chunk; the best sentence is about Rollo: not met.
    expect(await decide("Who led the Vikings raiders?", context)).toMatchObject({ check: "missing_constraint", detail: "vikings" });
    // "Normans" is in two chunks: the subject, met wherever the answer is.
    expect(await decide("Who was crowned king after the Normans conquered England?", context)).toMatchObject({ answerable: true });
  });

  it("abstains with not_answerable when the question is negated and the best sentence is not, 'whether or not' aside", async () => {
    expect(await decide("Which days are not received by new employees?")).toMatchObject({ reason: "not_answerable", check: "negation" });
    expect(await decide("How many vacation days do new employees get, whether or not they work part-time?")).toMatchObject({
      answerable: true,
    });
  });

  it("abstains with not_answerable when the best sentence states the question with the opposite polarity", async () => {
    expect(await decide("Which unused days can not be carried over?")).toMatchObject({ reason: "not_answerable", check: "negation" });
    expect(await decide("What is the least common form of travel?")).toMatchObject({
      reason: "not_answerable",
      check: "contradiction",
      detail: "least",
    });
  });

  it("abstains with not_answerable when the best sentence covers too little", async () => {
    expect(await decide("How many vacation days do new contractors get?", handbook, { minSentenceCoverage: 0.95 })).toMatchObject({
      reason: "not_answerable",
      check: "sentence_coverage",
    });
  });

  it("leaves the answer checks to a model when told to", async () => {
    expect(await decide("What is the least common form of travel?", handbook, { checkAnswer: false })).toMatchObject({ answerable: true });
    expect(await decide("How do I bake sourdough bread at home?", handbook, { checkAnswer: false })).toMatchObject({
      reason: "low_relevance",
    });
  });
  it("abstains with low_relevance when a question asking for a number meets a marginal passage that states none", async () => {
    const novel = contextOf(
      "Anna Pavlovna had had a cough for some days. It was the new fashion to receive guests.",
      "Prince Vasili always spoke languidly, like an actor repeating a stale part.",
    );
    const question = "How many vacation days do new employees get?";
    const decision = await decide(question, novel, { minTypedPassageCoverage: 0.45 });
    expect(decision).toMatchObject({ answerable: false, reason: "low_relevance", check: "answer_type", detail: "number" });
    // "days" and "new" meet the passage check; no sentence states a number.
    expect(decision.signals.passageCoverage).toBeGreaterThanOrEqual(0.3);
    expect(decision.signals.passageCoverage).toBeLessThan(0.45);
    expect(decision.signals.answerTypeOffered).toBe(false);
    // Off (0), the passage check alone lets it through to the answer checks.
    expect((await decide(question, novel, { minTypedPassageCoverage: 0 })).check).not.toBe("answer_type");
    // A passage that states a number answers.
    expect((await decide(question, handbook, { minTypedPassageCoverage: 0.45 })).answerable).toBe(true);
  });

  it("abstains with low_relevance when the best passage shares only common words with the question", async () => {
    // The TV series "Happy Days" shares "days" and "new" with the question, and nothing more specific.
    const television = contextOf(
      "Happy Days was a new sitcom on ABC in the 1970s.",
      "The network also aired Three's Company and Laverne & Shirley.",
    );
    const question = "How many vacation days do new employees get?";
    const decision = await decide(question, television, { minPassageSpecificity: 0.25 });
    expect(decision).toMatchObject({ answerable: false, reason: "low_relevance", check: "passage_specificity" });
    // "days" (0.46 in general English) is the most specific word the passage shares: 0.01 above common.
    expect(decision.signals.passageSpecificity).toBeCloseTo(0.01, 2);
    expect(decision.signals.passageCoverage).toBeGreaterThanOrEqual(0.3);
    // Off (the default of the function), the answer checks decide.
    expect((await decide(question, television)).check).not.toBe("passage_specificity");
    // A passage that shares "vacation" and "employees" with it is about the question.
    expect(await decide(question, handbook, { minPassageSpecificity: 0.25 })).toMatchObject({ answerable: true });
  });

  it("reads a name of the question as specific, and a passage holding most of the question as on-topic", async () => {
    // "Washington" is a common word in general English (0.57) but a name here: 1 − 0.45.
    const history = contextOf("Washington led a party of men to the fort.", "The fort stood by the river.");
    const named = await decide("Where did Washington lead his men?", history, { minPassageSpecificity: 0.25 });
    expect(named.signals.passageSpecificity).toBeCloseTo(0.55, 2);
    expect(named.check).not.toBe("passage_specificity");
    // Only common words, but the passage holds all of the question: answered.
    const office = contextOf("The office is open from nine to five every day.");
    const open = await decide("When is the office open every day?", office, { minPassageSpecificity: 0.25 });
    expect(open.signals.passageSpecificity).toBeLessThan(0.25);
    expect(open.signals.passageCoverage).toBeGreaterThanOrEqual(0.65);
    expect(open.check).not.toBe("passage_specificity");
  });

  it("abstains with not_answerable when a record gives the field asked for, but of another entity", async () => {
    const elements = contextOf(
      "name: Tungsten\nboiling_point: 6203\nmelting_point: 3695",
      "name: Carbon\nboiling_point: 4300\nmelting_point: 3823",
    );
    expect(await decide("What is the boiling point of ethanol?", elements)).toMatchObject({
      reason: "not_answerable",
      check: "record_subject",
      detail: "ethanol",
    });
    // The record of the entity asked about answers; so does one whose entity is written with a typo.
    expect(await decide("What is the boiling point of tungsten?", elements)).toMatchObject({ answerable: true });
    expect(await decide("What is the boiling point of tungstem?", elements)).toMatchObject({ answerable: true });
    // The subject is the most specific word, not a word the record merely lacks ("exactly").
    expect(await decide("What exactly is the boiling point of carbon?", elements)).toMatchObject({ answerable: true });
  });

  it("abstains with not_answerable when the best sentence fills the question's slot with another word", async () => {
    const theory = contextOf(
      "The best case occurs when each pivoting divides the list in half, also needing O(n log n) time.",
      "A computational problem can be viewed as an infinite collection of instances together with a solution for every instance.",
    );
    expect(
      await decide(
        "What case complexity is represented when each pivoting divides the list in thirds, also needing O(n log n) time?",
        theory,
      ),
    ).toMatchObject({ answerable: false, reason: "not_answerable", check: "substitution", detail: "thirds" });
    expect(
      await decide("What can be viewed as a limited collection of instances together with a solution for every instance?", theory),
    ).toMatchObject({ answerable: false, check: "substitution", detail: "limited" });
    expect(
      await decide("What can be viewed as an infinite collection of instances together with a solution for every instance?", theory),
    ).toMatchObject({ answerable: true });
  });
});
