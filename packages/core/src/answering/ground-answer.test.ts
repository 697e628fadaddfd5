import { describe, expect, it } from "vitest";
import { handbookContext, handbookQuestion, testChunk } from "../testing/handbook-context.js";
import { createEnglishAnalyzer } from "../text/analyzer.js";
import type { Answer } from "./answer.js";
import { noInformationSentence } from "./answer.js";
import { buildContext } from "./build-context.js";
import { groundAnswer, isDecline } from "./ground-answer.js";
import { rankEvidence } from "./rank-evidence.js";

const analyzer = createEnglishAnalyzer();
const context = handbookContext();
const answer = (fields: Partial<Answer>): Answer => ({
  callout_answer: "",
  positive_list: [],
  negative_list: [],
  info_list: [],
  keywords: [],
  ...fields,
});
/** A context of one document's one chunk, as retrieval gives it. */
const oneDocumentContext = (docId: string, text: string, title: string) =>
  buildContext([{ chunk: testChunk(docId, title, text), score: 0.9 }], { maxDocChars: 4000, maxContextChars: 16000 });
/** Grounds `callout` in `records` against the evidence ranked for `question`. */
const groundIn = async (records: ReturnType<typeof oneDocumentContext>, question: string, callout: string) =>
  groundAnswer(answer({ callout_answer: callout }), records, await rankEvidence(question, records, { analyzer }), { analyzer, question });
const ground = async (fields: Partial<Answer>, embedPassages?: (texts: string[]) => Promise<number[][]>) =>
  groundAnswer(answer(fields), context, await rankEvidence(handbookQuestion, context, { analyzer }), { analyzer, embedPassages });

describe("groundAnswer", () => {
  it("attaches the citation of the supporting passage to an uncited sentence, and drops an unsupported one", async () => {
    const outcome = await ground({
      callout_answer: "Employees receive 25 vacation days per year. Managers also get a company car.",
    });
    expect(outcome.answer.callout_answer).toBe("Employees receive 25 vacation days per year. [Source: doc_1]");
    expect(outcome).toMatchObject({ declined: false, attached: 1, dropped: 1 });
  });

  it("keeps a cited sentence as it is (checkCitations judges it later)", async () => {
    const outcome = await ground({ callout_answer: "Employees receive vacation days every year [Source: doc_2]." });
    expect(outcome.answer.callout_answer).toBe("Employees receive vacation days every year [Source: doc_2].");
    expect(outcome.attached).toBe(0);
  });

  it("cites again a sentence whose number only another passage holds", async () => {
    const outcome = await ground({ callout_answer: "Employees receive 25 vacation days per year [Source: doc_2]." });
    expect(outcome.answer.callout_answer).toBe("Employees receive 25 vacation days per year [Source: doc_1].");
    expect(outcome).toMatchObject({ unsupportedNames: 1, dropped: 0 });
  });

  it("drops a sentence naming what no passage nor the question holds, cited or not", async () => {
    const outcome = await ground({
      callout_answer:
        "Employees receive 25 vacation days per year [Source: doc_1]. Under the Geneva agreement, unused vacation days expire on March 31.",
      positive_list: ["Employees receive 40 vacation days per year [Source: doc_1]"],
    });
    expect(outcome.answer.callout_answer).toBe("Employees receive 25 vacation days per year [Source: doc_1].");
    expect(outcome.answer.positive_list).toEqual([]);
    expect(outcome).toMatchObject({ unsupportedNames: 2, dropped: 2 });
  });

  it("finds a name of letters and digits that the passage writes apart, as extracted subscripts are (O\\n2)", async () => {
    const chemistry = oneDocumentContext(
      "oxygen",
      "Singlet oxygen is a name given to higher-energy species of molecular O\n2 in which all the electron spins are paired.",
      "Oxygen",
    );
    const question = "What is the name for a form of oxygen in which electrons are paired?";
    const evidence = await rankEvidence(question, chemistry, { analyzer });
    const callout = "Singlet oxygen is molecular O2 in which all electron spins are paired [Source: doc_1].";
    const outcome = await groundAnswer(answer({ callout_answer: callout }), chemistry, evidence, { analyzer, question });
    expect(outcome).toMatchObject({ unsupportedNames: 0, answer: { callout_answer: callout } });
  });

  it("supports a sentence about a record by its names, values and field names, not outweighed by a common verb the record lacks", async () => {
    const records = oneDocumentContext(
      "mayors",
      "name: Ann Vale\ncity: Brackwater\nPartyAffiliation: Green Union\nterm_start: 1998-01-04\nterm_end: 2006-01-03\nShareWomenCouncil: 0.405",
      "mayors.json",
    );
    const question = "Which party did Ann Vale belong to?";
    const evidence = await rankEvidence(question, records, { analyzer });
    const outcome = await groundAnswer(
      answer({ callout_answer: "Ann Vale belonged to the Green Union party affiliation." }),
      records,
      evidence,
      {
        analyzer,
        question,
      },
    );
    expect(outcome).toMatchObject({ attached: 1, dropped: 0 });
    expect(outcome.answer.callout_answer).toBe("Ann Vale belonged to the Green Union party affiliation. [Source: doc_1]");
    const share = await groundAnswer(answer({ callout_answer: "In Brackwater, women hold 40.5%." }), records, evidence, {
      analyzer,
      question,
    });
    expect(share).toMatchObject({ attached: 1, dropped: 0, unsupportedNames: 0 });
  });

  it("reads a number by its value: another format of a number the passage states is supported, another value is not", async () => {
    const records = oneDocumentContext("tools", "name: Hedge Clipper\nprice: 18\nunits_sold: 12500\nreturn_rate: 0.031847", "tools.json");
    const question = "What is the price of the Hedge Clipper?";
    const evidence = await rankEvidence(question, records, { analyzer });
    const ground = (callout_answer: string) => groundAnswer(answer({ callout_answer }), records, evidence, { analyzer, question });
    for (const callout of [
      "The Hedge Clipper costs 18.00 [Source: doc_1].",
      "The Hedge Clipper sold 12,500 units [Source: doc_1].",
      "About 3.18% of Hedge Clippers are returned [Source: doc_1].",
    ]) {
      expect(await ground(callout)).toMatchObject({ unsupportedNames: 0, dropped: 0, answer: { callout_answer: callout } });
    }
    expect(await ground("The Hedge Clipper costs 18.50 [Source: doc_1].")).toMatchObject({ unsupportedNames: 1, dropped: 1 });
    expect(await ground("The Hedge Clipper sold 12,000 units [Source: doc_1].")).toMatchObject({ unsupportedNames: 1, dropped: 1 });
  });

  it("accepts the question's own numbers and a number written as a word, not the question's names that the cited passage lacks", async () => {
    const question = "When are Acme's travel expenses due in 2025?";
    const evidence = await rankEvidence(question, context, { analyzer });
    const ground = (callout_answer: string) => groundAnswer(answer({ callout_answer }), context, evidence, { analyzer, question });
    const numbers = await ground("In 2025, travel expenses must be submitted within thirty days [Source: doc_2].");
    expect(numbers).toMatchObject({ unsupportedNames: 0, dropped: 0 });
    const name = await ground("In 2025, Acme's travel expenses must be submitted within thirty days [Source: doc_2].");
    expect(name).toMatchObject({ unsupportedNames: 1, dropped: 1 });
    expect(name.answer.callout_answer).toBe("");
  });

  it("excuses the question's lesser names a passage writes otherwise when it names the question's subject", async () => {
    const records = oneDocumentContext("towns", "name: Kettlewick\nname_pt: Chaleira Velha\ncounty: Westmere", "towns.json");
    const question = "What is Kettlewick's Portuguese name?";
    const evidence = await rankEvidence(question, records, { analyzer });
    const ground = (callout_answer: string, asked = question) =>
      groundAnswer(answer({ callout_answer }), records, evidence, { analyzer, question: asked });
    const kept = await ground("Kettlewick's Portuguese name is Chaleira Velha [Source: doc_1].");
    expect(kept).toMatchObject({ unsupportedNames: 0, dropped: 0 });
    const otherSubject = await ground(
      "Hollowmere's Portuguese name is Chaleira Velha [Source: doc_1].",
      "What is Hollowmere's Portuguese name?",
    );
    expect(otherSubject).toMatchObject({ unsupportedNames: 1, dropped: 1 });
  });

  it("accepts a name the question writes in full where the cited passage names it in part and another passage of its document in full", async () => {
    const chunks = (secondDocument: string) =>
      buildContext(
        [
          {
            chunk: testChunk("players", "Players", "Tomos Wyn Bevan (born 1970) is a Welsh footballer who played as a forward."),
            score: 0.9,
          },
          {
            chunk: {
              ...testChunk(
                secondDocument,
                "Players",
                "In July 1997, the manager paid £650,000 to Castleford to secure the services of Bevan.",
              ),
              id: `${secondDocument}::1`,
              chunkIndex: 1,
            },
            score: 0.8,
          },
        ],
        { maxDocChars: 4000, maxContextChars: 16000 },
      );
    const question = "How much did the club pay Castleford to sign Tomos Bevan in 1997?";
    const callout = "The club paid £650,000 to Castleford to sign Tomos Bevan in 1997 [Source: doc_2].";
    const sameDocument = chunks("players");
    expect(Object.keys(sameDocument.sources)).toEqual(["doc_1", "doc_2"]);
    const kept = await groundIn(sameDocument, question, callout);
    expect(kept).toMatchObject({ unsupportedNames: 0, dropped: 0 });
    // Another document's "Bevan" may be somebody else.
    const dropped = await groundIn(chunks("transfers"), question, callout);
    expect(dropped.unsupportedNames).toBe(1);
  });

  it("does not ask a passage to hold the words a sentence repeats from the question, only what it adds", async () => {
    const records = oneDocumentContext("towns", "name: Kettlewick\nname_pt: Chaleira Velha\ncounty: Westmere", "towns.json");
    const question = "In the town register data, what is Kettlewick's Portuguese name?";
    const evidence = await rankEvidence(question, records, { analyzer });
    const ground = (callout_answer: string) => groundAnswer(answer({ callout_answer }), records, evidence, { analyzer, question });
    const framed = await ground("In the town register data, the Portuguese name of Kettlewick is Chaleira Velha.");
    expect(framed).toMatchObject({ attached: 1, dropped: 0 });
    expect(framed.answer.callout_answer).toBe(
      "In the town register data, the Portuguese name of Kettlewick is Chaleira Velha. [Source: doc_1]",
    );
    expect(await ground("In the town register data, the Portuguese name of Kettlewick is Vila Nova.")).toMatchObject({
      attached: 0,
      dropped: 1,
    });
    const plan = oneDocumentContext(
      "plan",
      "In May the council issued the Harbour Strategy, built on four pillars. Each has a budget.",
      "plan.pdf",
    );
    const asked = "How many pillars does the Harbour Strategy have?";
    const planEvidence = await rankEvidence(asked, plan, { analyzer });
    const counted = (callout_answer: string) => groundAnswer(answer({ callout_answer }), plan, planEvidence, { analyzer, question: asked });
    expect(await counted("The Harbour Strategy has four pillars.")).toMatchObject({ attached: 1, dropped: 0 });
    expect(await counted("The Harbour Strategy has six pillars.")).toMatchObject({ dropped: 1 });
    const founded = oneDocumentContext("towns", "name: Kettlewick\ncounty: Westmere\nfounded: 1821", "towns.json");
    const residents = "How many residents does Kettlewick have?";
    const foundedEvidence = await rankEvidence(residents, founded, { analyzer });
    expect(
      await groundAnswer(answer({ callout_answer: "Kettlewick has 1821 residents." }), founded, foundedEvidence, {
        analyzer,
        question: residents,
      }),
    ).toMatchObject({ attached: 0, dropped: 1 });
  });

  it("supports a sentence that restates the question with a record's value by its document's title and compound field names", async () => {
    const records = oneDocumentContext("sweets", "competitorname: Fudge Ripple\nsugarpercent: .3\nwinpercent: 64.5", "sweets_ranking.csv");
    const question = "What is Fudge Ripple's win percentage in the sweets ranking?";
    const evidence = await rankEvidence(question, records, { analyzer });
    const ground = (callout_answer: string) => groundAnswer(answer({ callout_answer }), records, evidence, { analyzer, question });
    expect(await ground("Fudge Ripple's win percentage in the sweets ranking is 64.5%.")).toMatchObject({ attached: 1, dropped: 0 });
    // Attached by its words, then dropped by its number, which the record does not hold.
    const wrong = await ground("Fudge Ripple's win percentage in the sweets ranking is 71.2%.");
    expect(wrong).toMatchObject({ dropped: 1, unsupportedNames: 1 });
    expect(wrong.answer.callout_answer).toBe("");
  });

  it("drops a record's number stated of a field it is not the value of, unless the field's name is no English word", async () => {
    const records = oneDocumentContext("elements", "name: Brindlite\natomic_weight: 173\ndensity: 6.9\nndex: 42", "elements.json");
    const question = "What is the melting point of brindlite?";
    const evidence = await rankEvidence(question, records, { analyzer });
    const ground = (callout_answer: string) => groundAnswer(answer({ callout_answer }), records, evidence, { analyzer, question });
    const misattributed = await ground("The melting point of brindlite is 173.00 K [Source: doc_1].");
    expect(misattributed).toMatchObject({ dropped: 1, unsupportedNames: 1 });
    expect(misattributed.answer.callout_answer).toBe("");
    for (const callout of ["The atomic weight of brindlite is 173 [Source: doc_1].", "Brindlite's index number is 42 [Source: doc_1]."]) {
      expect(await ground(callout)).toMatchObject({ dropped: 0, unsupportedNames: 0, answer: { callout_answer: callout } });
    }
  });

  it("reads a record's ISO date as the date an answer spells out, month by name", async () => {
    const records = oneDocumentContext("people", "name: Ada Quill\nbirthday: 1951-07-14\ncity: Brackwater", "people.json");
    const question = "When was Ada Quill born?";
    const evidence = await rankEvidence(question, records, { analyzer });
    const ground = (callout_answer: string) => groundAnswer(answer({ callout_answer }), records, evidence, { analyzer, question });
    expect(await ground("Ada Quill was born on July 14, 1951.")).toMatchObject({ attached: 1, dropped: 0 });
    expect(await ground("Ada Quill was born on June 14, 1951.")).toMatchObject({ attached: 0, dropped: 1 });
  });

  it("keeps a quoted question inside its sentence", async () => {
    const poems = oneDocumentContext("poems", "lines:\nWhere has the summer gone?\nThe swallows left at dawn.\nnumber: 12", "poems.json");
    const callout = "The poem that begins with 'Where has the summer gone?' is poem 12 [Source: doc_1].";
    const outcome = await groundIn(poems, 'Which poem begins with "Where has the summer gone?"', callout);
    expect(outcome.answer.callout_answer).toBe("The poem that begins with 'Where has the summer gone?' is poem 12 [Source: doc_1].");
    expect(outcome.dropped).toBe(0);
  });

  it("moves a leading citation behind its statement and gives a pointer sentence's citation to the sentence before it", async () => {
    const leading = await ground({ callout_answer: "According to [Source: doc_1], employees receive 25 vacation days per year." });
    expect(leading.answer.callout_answer).toBe("Employees receive 25 vacation days per year [Source: doc_1].");
    const trailing = await ground({ callout_answer: "Employees receive 25 vacation days per year, as stated in [Source: doc_1]." });
    expect(trailing.answer.callout_answer).toBe("Employees receive 25 vacation days per year [Source: doc_1].");
    for (const pointer of [
      "This can be found in [Source: doc_1].",
      "This is based on the information provided in [Source: doc_1].",
      "This information is provided in the source [Source: doc_1].",
      "This can be found in the leave_policy document [Source: doc_1].",
    ]) {
      const grounded = await ground({ callout_answer: `Unused vacation days expire on March 31. ${pointer}` });
      expect(grounded.answer.callout_answer, pointer).toBe("Unused vacation days expire on March 31. [Source: doc_1]");
    }
  });

  it("drops repeats, restatements of the callout and decline sentences from the lists", async () => {
    const outcome = await ground({
      callout_answer: "Employees receive 25 vacation days per year. [Source: doc_1]",
      positive_list: [
        "Employees receive 25 vacation days per year [Source: doc_1]",
        "Unused vacation days expire on March 31 of the following year. [Source: doc_1]",
        "Unused vacation days expire on March 31 of the following year. [Source: doc_1]",
      ],
      negative_list: [noInformationSentence],
    });
    expect(outcome.answer.positive_list).toEqual(["Unused vacation days expire on March 31 of the following year. [Source: doc_1]"]);
    expect(outcome.answer.negative_list).toEqual([]);
    expect(outcome.dropped).toBe(3);
  });

  it("grounds a list item sentence by sentence: a restatement followed by a pointer goes", async () => {
    const outcome = await ground({
      callout_answer: "Employees receive 25 vacation days per year. [Source: doc_1]",
      positive_list: [
        "Employees receive 25 vacation days per year. This can be found in [Source: doc_1].",
        "Unused vacation days expire on March 31. Travel expenses are due within 30 days.",
      ],
    });
    expect(outcome.answer.positive_list).toEqual([
      "Unused vacation days expire on March 31. [Source: doc_1] Travel expenses are due within 30 days. [Source: doc_2]",
    ]);
  });

  it("reads a decline as such", async () => {
    expect((await ground({ callout_answer: noInformationSentence })).declined).toBe(true);
    expect((await ground({ callout_answer: "The context does not say how many vacation days contractors get." })).declined).toBe(true);
  });

  it("chooses among supporting passages the one closest by the embedding model", async () => {
    // Both chunks state "receipts within 30 days"-like words? Only doc_2 does; the vectors must not override lexical support.
    const embed = async (texts: string[]) => texts.map((text) => (text.includes("Travel") || text.includes("travel") ? [1, 0] : [0, 1]));
    const outcome = await ground({ callout_answer: "Travel expenses must be submitted within 30 days." }, embed);
    expect(outcome.answer.callout_answer).toBe("Travel expenses must be submitted within 30 days. [Source: doc_2]");
  });
});

describe("isDecline", () => {
  it("recognises declines that name the sources, not negations about the world", () => {
    expect(isDecline("No information about contractors is given.")).toBe(true);
    expect(isDecline("The documents do not contain the number of parking spaces.")).toBe(true);
    expect(isDecline("The answer cannot be determined from the sources.")).toBe(true);
    expect(isDecline("Integer types do not contain decimals. [Source: doc_1]")).toBe(false);
    expect(isDecline("Unused days are not carried over. [Source: doc_1]")).toBe(false);
  });
});
