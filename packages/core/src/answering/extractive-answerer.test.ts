import { describe, expect, it } from "vitest";
import { type ChunkRecord, chunkId } from "../stores/chunk-record.js";
import { createEnglishAnalyzer } from "../text/analyzer.js";
import { noInformationSentence } from "./answer.js";
import { buildContext } from "./build-context.js";
import { citedKeys } from "./citations.js";
import { composeAnswer, createExtractiveAnswerer } from "./extractive-answerer.js";
import { rankEvidence } from "./rank-evidence.js";

const analyzer = createEnglishAnalyzer();
function chunk(docId: string, text: string, title = docId): ChunkRecord {
  return { id: chunkId(docId, 0), docId, chunkIndex: 0, text, title, source: "", ownerId: "", acl: "", metadata: {}, contentHash: docId };
}
const contextOf = (...chunks: ChunkRecord[]) =>
  buildContext(
    chunks.map((item, index) => ({ chunk: item, score: 1 / (index + 1) })),
    { maxDocChars: 4000, maxContextChars: 16_000 },
  );
const answerer = createExtractiveAnswerer({ analyzer });
const ask = async (question: string, ...chunks: ChunkRecord[]) => {
  const context = contextOf(...chunks);
  const evidence = await rankEvidence(question, context, { analyzer });
  return { generated: await answerer.answer({ question, context, evidence }), evidence, context };
};

describe("createExtractiveAnswerer", () => {
  it("is named extractive", () => {
    expect(answerer.name).toBe("extractive");
  });

  it("answers with the sentence that holds the answer, citing its chunk", async () => {
    const { generated } = await ask(
      "How many weeks of parental leave do new parents get?",
      chunk("travel", "Meals are reimbursed up to 60 euros per day."),
      chunk("leave", "Parental leave is requested in the HR portal. New parents receive 16 weeks of parental leave at full pay."),
    );
    expect(generated).toMatchObject({ mode: "extractive", model: "extractive", abstained: false, abstentionReason: null });
    expect(generated.answer.callout_answer).toBe("New parents receive 16 weeks of parental leave at full pay. [Source: doc_2]");
    expect(generated.answer.keywords.slice(0, 3)).toEqual(expect.arrayContaining(["parental", "weeks"]));
  });

  it("answers a table question with the field asked for, named by its entity and column, and the row as a supporting point", async () => {
    const { generated } = await ask(
      "How many servings of wine does France drink?",
      chunk("drinks-1", "country: France; beer_servings: 127; wine_servings: 370", "drinks"),
      chunk("drinks-2", "country: Italy; beer_servings: 85; wine_servings: 237", "drinks"),
    );
    expect(generated.answer.callout_answer).toBe("France: wine_servings 370 [Source: doc_1]");
    expect(generated.answer.positive_list).toEqual(["country: France; beer_servings: 127 [Source: doc_1]"]);
  });

  it("answers a record question with the field asked for, named by the record", async () => {
    const { generated } = await ask(
      "What is the melting point of tin?",
      chunk("tin", "name: Tin\nsymbol: Sn\nmelting_point: 505.08\nboiling_point: 2875", "Tin (metals)"),
    );
    expect(generated.answer.callout_answer).toBe("Tin: melting_point 505.08 [Source: doc_1]");
  });

  it("answers a how-to question with the command and its lead-in, without the shell prompt", async () => {
    const { generated } = await ask(
      "How do I clear the cache?",
      chunk("guide", "## Clearing the cache\n\nThe cache grows over time.\n\nTo clear it, run:\n\n```\n$ acme cache clear --all\n```"),
    );
    expect(generated.answer.callout_answer).toBe("To clear it, run: `acme cache clear --all` [Source: doc_1]");
  });

  it("supports an answer only with points on the same question", async () => {
    const { generated } = await ask(
      "How many vacation days do new employees get?",
      chunk(
        "leave",
        "New employees receive 20 vacation days in their first year. Full-time employees receive 25 vacation days per year. New employees may carry over 5 vacation days.",
      ),
    );
    expect(generated.answer.callout_answer).toBe("New employees receive 20 vacation days in their first year. [Source: doc_1]");
    expect(generated.answer.positive_list.join(" ")).not.toContain("Full-time");
  });

  it("puts a caveat next to the callout into negative_list, and nothing from elsewhere", async () => {
    const { generated } = await ask(
      "How many vacation days do new employees get?",
      chunk(
        "leave",
        "New employees receive 20 vacation days in their first year. Unused days are not carried over. The office is closed in August.",
      ),
      chunk("other", "Contractors are not eligible for paid leave."),
    );
    expect(generated.answer.negative_list).toEqual(["Unused days are not carried over. [Source: doc_1]"]);
  });

  it("cites only keys of the context, every list item included", async () => {
    const { generated, context } = await ask(
      "How many servings of wine does France drink?",
      chunk("drinks-1", "country: France; beer_servings: 127; wine_servings: 370", "drinks"),
    );
    const { answer } = generated;
    for (const item of [answer.callout_answer, ...answer.positive_list, ...answer.negative_list, ...answer.info_list]) {
      expect(citedKeys(item).length).toBeGreaterThan(0);
      for (const key of citedKeys(item)) expect(context.sources[key]).toBeDefined();
    }
  });

  it("abstains on its own with the pipeline's decision when it is given no evidence", async () => {
    const context = contextOf(chunk("report", "The quarterly report is due on the fifth working day."));
    const generated = await answerer.answer({ question: "How long should I boil an egg for a soft yolk?", context });
    expect(generated).toMatchObject({ abstained: true, abstentionReason: "low_relevance" });
    expect(generated.answer.callout_answer).toBe(noInformationSentence);
    const empty = await answerer.answer({ question: "Anything?", context: contextOf() });
    expect(empty).toMatchObject({ abstained: true, abstentionReason: "no_documents" });
  });
});

describe("composeAnswer", () => {
  it("adds the sentence a lead-in introduces", async () => {
    const context = contextOf(chunk("steps", "Before you start, do this:\n\nClose every open document.\n\nThen restart."));
    const evidence = await rankEvidence("What should I do before I start?", context, { analyzer });
    const leadIn = evidence.units.find((unit) => unit.text === "Before you start, do this:");
    const terms = new Set(evidence.questionTerms.map(({ term }) => term));
    expect(composeAnswer(leadIn as NonNullable<typeof leadIn>, evidence.units, terms).callout_answer).toBe(
      "Before you start, do this: Close every open document. [Source: doc_1]",
    );
  });

  const howTo = [
    "## Updating the widget tool",
    "",
    "Once the widget tool is installed, updating it to a newer release is easy.",
    "From your shell, run the following script:",
    "",
    "```console",
    "$ widget self-update",
    "```",
    "",
    "## Removing it",
    "",
    "Removing the widget tool takes one command.",
    "",
    "```console",
    "$ widget self-remove",
    "```",
  ].join("\n");
  const sentenceOf = async (question: string, text: string) => {
    const evidence = await rankEvidence(question, contextOf(chunk("guide", howTo)), { analyzer });
    const unit = evidence.units.find((candidate) => candidate.text === text);
    return { evidence, unit: unit as NonNullable<typeof unit>, terms: new Set(evidence.questionTerms.map(({ term }) => term)) };
  };

  it("answers a procedure question with the command the best sentence explains", async () => {
    const { evidence, unit, terms } = await sentenceOf(
      "How do I update the widget tool?",
      "Once the widget tool is installed, updating it to a newer release is easy.",
    );
    expect(composeAnswer(unit, evidence.units, terms, 2, { procedure: evidence.asksProcedure }).callout_answer).toBe(
      "Once the widget tool is installed, updating it to a newer release is easy. From your shell, run the following script: `widget self-update` [Source: doc_1]",
    );
  });

  it("adds no command to a sentence answering a question that asks no procedure", async () => {
    const { evidence, unit, terms } = await sentenceOf(
      "Is updating the widget tool easy?",
      "Once the widget tool is installed, updating it to a newer release is easy.",
    );
    expect(evidence.asksProcedure).toBe(false);
    expect(composeAnswer(unit, evidence.units, terms, 2, { procedure: evidence.asksProcedure }).callout_answer).toBe(
      "Once the widget tool is installed, updating it to a newer release is easy. [Source: doc_1]",
    );
  });

  it("takes no command from past a heading", async () => {
    const text = [
      "## Before removing",
      "",
      "Back up the widget settings before you remove the widget tool.",
      "",
      "## Another task",
      "",
      "```console",
      "$ widget self-remove",
      "```",
    ].join("\n");
    const evidence = await rankEvidence("How do I remove the widget tool?", contextOf(chunk("guide", text)), { analyzer });
    const sentence = evidence.units.find((unit) => unit.kind === "sentence");
    const terms = new Set(evidence.questionTerms.map(({ term }) => term));
    expect(composeAnswer(sentence as NonNullable<typeof sentence>, evidence.units, terms, 2, { procedure: true }).callout_answer).toBe(
      "Back up the widget settings before you remove the widget tool. [Source: doc_1]",
    );
  });

  const sectioned = (section: string, text: string): ChunkRecord => ({ ...chunk("notes", text, "Release notes"), metadata: { section } });

  it("leads a sentence that restates the question with the heading path that answers it", async () => {
    const { generated, evidence } = await ask(
      "Which version added streaming responses for the search endpoint?",
      sectioned(
        "Release notes > 4.2.0 (2026-03-02) > Added",
        "- Streaming responses for the search endpoint.\n- A dry-run flag for imports.",
      ),
    );
    expect(evidence.units[0]?.answeringSection).toBe("Release notes > 4.2.0 (2026-03-02) > Added");
    expect(generated.answer.callout_answer).toBe(
      "Release notes > 4.2.0 (2026-03-02) > Added \u2014 Streaming responses for the search endpoint. [Source: doc_1]",
    );
  });

  it("leads a sentence with its heading when the heading names what the question asks about", async () => {
    const { generated } = await ask(
      "What is the default value of the request timeout?",
      sectioned("Settings > Request timeout", "How long the server waits for a reply, in milliseconds.\n\nDefault: 30000"),
    );
    expect(generated.answer.callout_answer).toBe("Settings > Request timeout \u2014 Default: 30000 [Source: doc_1]");
    const plain = await ask(
      "How long does the server wait for a reply?",
      sectioned("Settings > Request timeout", "The server waits 30 seconds for a reply."),
    );
    expect(plain.generated.answer.callout_answer).toBe("The server waits 30 seconds for a reply. [Source: doc_1]");
  });
});
