import { describe, expect, it } from "vitest";
import { type ChunkRecord, chunkId } from "../stores/chunk-record.js";
import { createEnglishAnalyzer } from "../text/analyzer.js";
import type { LogisticModel } from "./answer-model.js";
import { buildContext } from "./build-context.js";
import { answerabilityFeatures, decideAnswerable } from "./decide-answerable.js";
import { rankEvidence } from "./rank-evidence.js";

const analyzer = createEnglishAnalyzer();
const chunk = (docId: string, text: string): ChunkRecord => ({
  id: chunkId(docId, 0),
  docId,
  chunkIndex: 0,
  text,
  title: docId,
  source: "",
  ownerId: "",
  acl: "",
  metadata: {},
  contentHash: docId,
});
const evidenceFor = (question: string, ...texts: string[]) =>
  rankEvidence(
    question,
    buildContext(
      texts.map((text, index) => ({ chunk: chunk(`doc${index}`, text), score: 1 })),
      { maxDocChars: 4000, maxContextChars: 16_000 },
    ),
    { analyzer },
  );
/** A model that answers `probability` whatever the features. */
const constant = (name: string, probability: number, threshold: number): LogisticModel => ({
  name,
  intercept: Math.log(probability / (1 - probability)),
  weights: {},
  threshold,
});

describe("decideAnswerable", () => {
  it("abstains with no_documents on an empty context", async () => {
    const decision = decideAnswerable(await evidenceFor("Anything?"));
    expect(decision).toMatchObject({ answerable: false, reason: "no_documents", check: "no_context" });
    expect(decision.signals.features).toBeNull();
  });

  it("abstains with low_relevance below the relevance threshold, before the answerability check", async () => {
    const evidence = await evidenceFor("When does the canteen open?", "The canteen opens at noon.");
    const models = { relevance: constant("r", 0.3, 0.5), answerability: constant("a", 0.1, 0.5) };
    expect(decideAnswerable(evidence, { models })).toMatchObject({ reason: "low_relevance", check: "relevance" });
    expect(decideAnswerable(evidence, { models, minRelevance: 0.2 })).toMatchObject({ reason: "not_answerable", check: "answerability" });
  });

  it("reads the table answer's score and the share of the question it explains as features", async () => {
    const evidence = await evidenceFor("How many lanterns were sold in 2002?", "Year: 2002; Lanterns sold: 14");
    const features = (explained: number) => answerabilityFeatures(evidence, { score: 0.4, explained });
    expect(features(0.75)).toMatchObject({ tableScore: 0.4, tableExplained: 0.75 });
    expect(answerabilityFeatures(evidence)).toMatchObject({ tableScore: 0, tableExplained: 0 });
    // The fitted relevance model: a plan that accounts for more of the question makes the context more relevant.
    const relevance = (explained: number) =>
      decideAnswerable(evidence, { tableAnswer: { score: 0.4, explained, restatesCondition: false } }).signals.relevance ?? 0;
    expect(relevance(0.9)).toBeGreaterThan(relevance(0.1));
  });

  it("leaves the answerability check to a chat model", async () => {
    const evidence = await evidenceFor("When does the canteen open?", "The canteen opens at noon.");
    const models = { relevance: constant("r", 0.9, 0.5), answerability: constant("a", 0.1, 0.5) };
    expect(decideAnswerable(evidence, { models, checkAnswer: false })).toMatchObject({ answerable: true, reason: null });
    expect(decideAnswerable(evidence, { models, minAnswerability: 0 })).toMatchObject({ answerable: true });
  });

  it("declines a record lookup when the question names none of the record's fields, unless a model or a table answer that does not restate its condition answers", async () => {
    const record = "name: Brindle Hollow; county: Westmere; founded: 1821; mayor: Ada Quill";
    const models = { relevance: constant("r", 0.9, 0.5), answerability: constant("a", 0.9, 0.5) };
    const unnamed = await evidenceFor("What is the elevation of Brindle Hollow?", record);
    expect(unnamed.units[0]?.kind).toBe("cell");
    expect(unnamed.units[0]?.unnamedField).toBe(true);
    expect(decideAnswerable(unnamed, { models })).toMatchObject({ answerable: false, reason: "not_answerable", check: "answerability" });
    expect(decideAnswerable(unnamed, { models, checkAnswer: false })).toMatchObject({ answerable: true });
    const tableAnswer = (restatesCondition: boolean) => ({ score: 0.5, explained: 0.5, restatesCondition });
    expect(decideAnswerable(unnamed, { models, tableAnswer: tableAnswer(false) })).toMatchObject({ answerable: true });
    expect(decideAnswerable(unnamed, { models, tableAnswer: tableAnswer(true) })).toMatchObject({ answerable: false });
    // A table answer the best cell outscores is not the answer given: the field check applies.
    expect(decideAnswerable(unnamed, { models, tableAnswer: { score: 0.001, explained: 0.5, restatesCondition: false } })).toMatchObject({
      answerable: false,
    });
    const named = await evidenceFor("Who is the mayor of Brindle Hollow?", record);
    expect(named.units[0]?.cell).toEqual({ key: "mayor", value: "Ada Quill" });
    expect(decideAnswerable(named, { models })).toMatchObject({ answerable: true });
  });

  it("declines a record's field when the question names another record of the context, which lacks that field", async () => {
    const hollow = "name: Brindle Hollow; county: Westmere; elevation: 212 m";
    const marsh = "name: Marsh End; county: Westmere; founded: 1790";
    const models = { relevance: constant("r", 0.9, 0.5), answerability: constant("a", 0.9, 0.5) };
    // A scorer that ranks by the field named alone puts Brindle Hollow's elevation first.
    const byField: LogisticModel = { name: "field", intercept: -2, weights: { focusKey: 4 } };
    const context = buildContext(
      [hollow, marsh].map((text, index) => ({ chunk: chunk(`doc${index}`, text), score: 1 })),
      { maxDocChars: 4000, maxContextChars: 16_000 },
    );
    const elsewhere = await rankEvidence("What is the elevation of Marsh End?", context, { analyzer, scorer: byField });
    expect(elsewhere.units[0]?.cell).toEqual({ key: "elevation", value: "212 m" });
    expect(elsewhere.entityElsewhere).toBe(true);
    expect(decideAnswerable(elsewhere, { models })).toMatchObject({ answerable: false, reason: "not_answerable", check: "answerability" });
    const own = await rankEvidence("What is the elevation of Brindle Hollow?", context, { analyzer, scorer: byField });
    expect(own.units[0]?.cell).toEqual({ key: "elevation", value: "212 m" });
    expect(own.entityElsewhere).toBe(false);
    expect(decideAnswerable(own, { models })).toMatchObject({ answerable: true });
    // A question naming no entity at all ("What is the elevation?") is left to the fitted models.
    expect((await evidenceFor("What is the elevation?", hollow, marsh)).entityElsewhere).toBe(false);
  });

  it("leaves a record holding prose to the fitted models, whichever fields the question names", async () => {
    const record = "title: Brindle Hollow; text: Brindle Hollow lies on the Westmere. Its mill was built in 1821.";
    const models = { relevance: constant("r", 0.9, 0.5), answerability: constant("a", 0.9, 0.5) };
    const evidence = await evidenceFor("When was the mill of Brindle Hollow built?", record);
    expect(evidence.units[0]?.kind).toBe("cell");
    expect(evidence.units[0]?.unnamedField).toBe(false);
    expect(decideAnswerable(evidence, { models })).toMatchObject({ answerable: true });
  });

  it("reads a row's first cell as its identity: an answer to a question that picks the row by another field, an attribute when the question names it", async () => {
    const rows = "Site: Ask A Herbalist; Topic: Botany; Founded: 2004\nSite: Star Chart; Topic: Astronomy; Founded: 2011";
    const models = { relevance: constant("r", 0.9, 0.5), answerability: constant("a", 0.9, 0.5) };
    const picked = await evidenceFor("Name a resource that only offers botany.", rows);
    expect(picked.units[0]?.cell?.value).toBe("Ask A Herbalist");
    expect(decideAnswerable(picked, { models })).toMatchObject({ answerable: true });
    const named = await evidenceFor("What is the population of Star Chart?", rows);
    expect(named.units[0]?.unnamedField).toBe(true);
    expect(decideAnswerable(named, { models })).toMatchObject({ answerable: false, reason: "not_answerable" });
  });

  it("declines a how-many question whose counted noun the row states nowhere, though the question names one of its fields", async () => {
    const record = "name: Crumble Bar; bar: 1; chocolate: 1; sugar_percent: 0.55";
    const models = { relevance: constant("r", 0.9, 0.5), answerability: constant("a", 0.9, 0.5) };
    const uncounted = await evidenceFor("How many calories are in a Crumble bar?", record);
    expect(uncounted.units[0]?.kind).toBe("cell");
    expect(uncounted.units[0]?.unnamedField).toBe(true);
    expect(decideAnswerable(uncounted, { models })).toMatchObject({ answerable: false, reason: "not_answerable" });
    // The counted noun named by a field, or stated as a value beside the count, is a count the row holds.
    const counted = await evidenceFor("How many calories are in a Crumble bar?", "name: Crumble Bar; bar: 1; calories: 210");
    expect(counted.units[0]?.cell).toEqual({ key: "calories", value: "210" });
    expect(decideAnswerable(counted, { models })).toMatchObject({ answerable: true });
    const stated = await evidenceFor(
      "How many calories are in a Crumble bar?",
      "name: Crumble Bar; bar: 1; nutrient: calories; amount: 210",
    );
    expect(stated.units[0]?.unnamedField).toBe(false);
  });

  it("reads a value written as one token (a URL slug, an identifier) as no prose, whatever its dots", async () => {
    const record = "name: Ada Quill (Earth-9); urlslug: /Ada_Q._Quill_(Earth-9); hair: Red Hair; appearances: 3";
    const models = { relevance: constant("r", 0.9, 0.5), answerability: constant("a", 0.9, 0.5) };
    const evidence = await evidenceFor("When was Ada Quill born?", record);
    expect(evidence.units[0]?.unnamedField).toBe(true);
    expect(decideAnswerable(evidence, { models })).toMatchObject({ answerable: false, reason: "not_answerable" });
  });

  it("reports both probabilities and the models that decided", async () => {
    const evidence = await evidenceFor("When does the canteen open?", "The canteen opens at noon.");
    const decision = decideAnswerable(evidence, { models: { relevance: constant("r", 0.9, 0.5), answerability: constant("a", 0.8, 0.5) } });
    expect(decision.signals.relevance).toBeCloseTo(0.9, 6);
    expect(decision.signals.answerability).toBeCloseTo(0.8, 6);
    expect(decision.signals.models).toBe("r+a");
  });

  it("decides with the fitted lexical models by default: a passage on the question passes, an unrelated one does not", async () => {
    const onTopic = await evidenceFor(
      "How many days of annual leave do new employees receive?",
      "New employees receive 25 days of annual leave, prorated in their first year.",
    );
    expect(decideAnswerable(onTopic)).toMatchObject({ answerable: true });
    const offTopic = await evidenceFor(
      "How long should I boil an egg for a soft yolk?",
      "The quarterly report is due on the fifth working day.",
    );
    expect(decideAnswerable(offTopic)).toMatchObject({ answerable: false, reason: "low_relevance" });
  });
});

describe("answerabilityFeatures", () => {
  it("reads the best unit: its score, coverage, the question's negation it lacks", async () => {
    const evidence = await evidenceFor("Which office is not open on Fridays?", "The Oslo office is open on Fridays until noon.");
    const features = answerabilityFeatures(evidence);
    expect(features?.bestScore).toBe(evidence.units[0]?.score);
    expect(features?.negationMismatch).toBe(1);
    expect(features?.bestCoverage).toBeGreaterThan(0.5);
    expect(features?.denseMax).toBe(0);
  });

  it("marks a best sentence that states the question with a word replaced by its opposite", async () => {
    const evidence = await evidenceFor("What is the least common request?", "The most common request is a long weekend.");
    expect(answerabilityFeatures(evidence)?.contradicted).toBe(1);
  });
});
