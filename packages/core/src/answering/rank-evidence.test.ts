import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import { describe, expect, it } from "vitest";
import { type ChunkRecord, chunkId } from "../stores/chunk-record.js";
import { createEnglishAnalyzer } from "../text/analyzer.js";
import type { FittedScorer } from "./answer-model.js";
import { buildContext } from "./build-context.js";
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

/** Embeds by a fixed table: texts not in it get the zero vector. */
class TableEmbeddings implements EmbeddingsInterface {
  constructor(private readonly table: Record<string, number[]>) {}
  async embedQuery(text: string) {
    return this.table[`q:${text}`] ?? [0, 0];
  }
  async embedDocuments(texts: string[]) {
    return texts.map((text) => this.table[text] ?? [0, 0]);
  }
}

describe("rankEvidence", () => {
  it("ranks first the sentence that states the question and offers the number asked for", async () => {
    const context = contextOf(
      chunk(
        "leave",
        "Parental leave is requested in the HR portal. New parents receive 16 weeks of parental leave at full pay. Unused leave lapses.",
      ),
      chunk("travel", "Meals are reimbursed up to 60 euros per day."),
    );
    const evidence = await rankEvidence("How many weeks of parental leave do new parents get?", context, { analyzer });
    expect(evidence.expectedType).toBe("number");
    expect(evidence.units[0]?.text).toBe("New parents receive 16 weeks of parental leave at full pay.");
    expect(evidence.units[0]?.features.typeOffered).toBe(1);
    expect(evidence.denseUsed).toBe(false);
    expect(evidence.scorer).toBe("lexical");
  });

  it("answers a table question with the cell of the column asked for, in the row of the entity asked about", async () => {
    const context = contextOf(
      chunk("drinks-2", "country: Italy; beer_servings: 85; wine_servings: 237", "drinks"),
      chunk("drinks-1", "country: France; beer_servings: 127; wine_servings: 370", "drinks"),
    );
    const evidence = await rankEvidence("How many servings of wine does France drink?", context, { analyzer });
    const best = evidence.units[0];
    expect(best?.kind).toBe("cell");
    expect(best?.cell).toEqual({ key: "wine_servings", value: "370" });
    expect(best?.subject?.value).toBe("France");
  });

  it("matches a record key to a question word it derives from", async () => {
    const context = contextOf(chunk("tin", "name: Tin\nsymbol: Sn\ndiscoverer: ancient metallurgists\nmelting_point: 505", "Tin (metals)"));
    const evidence = await rankEvidence("Who discovered tin?", context, { analyzer });
    expect(evidence.units[0]?.cell?.key).toBe("discoverer");
    expect(evidence.units[0]?.features.coverage).toBeGreaterThan(0);
  });

  it("reads a question word that names a field as the field, not as the entity: another cell's value holding it states nothing", async () => {
    const context = contextOf(
      chunk("heroes-1", "name: Moth-Boy (Ann Vale); page_id: 4411; EYE: Green Eyes; HAIR: Red Hair; SEX: Female Characters", "heroes"),
    );
    const evidence = await rankEvidence("What colour are Moth-Boy's eyes?", context, { analyzer });
    expect(evidence.units[0]?.cell?.key).toBe("EYE");
  });

  it("matches a record key to a form of the question's verb that stemming does not join ('born' and `birth_date`)", async () => {
    const context = contextOf(
      chunk("poets-1", "name: Edna Marsh\nterm_start: 1921-06-01\nbirth_date: 1894-02-11\ndeath_date: 1950-10-19", "Edna Marsh (poets)"),
    );
    const born = await rankEvidence("When was Edna Marsh born?", context, { analyzer });
    expect(born.units[0]?.cell?.key).toBe("birth_date");
    const died = await rankEvidence("When did Edna Marsh die?", context, { analyzer });
    expect(died.units[0]?.cell?.key).toBe("death_date");
  });

  it("reads a record's field and values in the question's other words: a noun synonym, a pertainym", async () => {
    const context = contextOf(chunk("shop-1", "sku: GRD-7; name: Copper Kettle; price: 42; in_stock: true", "catalogue"));
    const plain = await rankEvidence("How much does the copper kettle weigh?", context, { analyzer });
    const evidence = await rankEvidence("How much does the copper kettle cost?", context, { analyzer });
    expect(evidence.units[0]?.cell?.key).toBe("price");
    expect(evidence.units[0]?.fieldNamed).toBe(true);
    expect(evidence.units[0]?.features.coverage).toBeGreaterThan(plain.units[0]?.features.coverage ?? 1);
    const role = contextOf(chunk("terms-1", "name: Ada Quill; office: President; start: 1921-06-01", "offices"));
    const presidential = await rankEvidence("When did Ada Quill's presidential term start?", role, { analyzer });
    expect(presidential.questionTerms.find(({ word }) => word === "presidential")).toBeDefined();
    expect(presidential.units[0]?.cell?.key).toBe("start");
    expect(presidential.units[0]?.features.coverage).toBeGreaterThan(0.6);
  });

  it("never answers with a cell that only repeats the question", async () => {
    const context = contextOf(chunk("boats", "Yacht: Blue Heron; Skipper: Ann Lee; Time: 3:06:02", "regatta"));
    const evidence = await rankEvidence("Who was the skipper of Blue Heron?", context, { analyzer });
    const echo = evidence.units.find((unit) => unit.cell?.key === "Yacht");
    expect(echo?.echo).toBe(true);
    expect(echo?.score).toBe(0);
    expect(evidence.units[0]?.cell?.key).toBe("Skipper");
  });

  it("answers a how-to question with the command under the heading that names the task", async () => {
    const text = [
      "## Installing the agent",
      "",
      "The agent runs on every supported system. Download it from the portal.",
      "",
      "Open a terminal and enter:",
      "",
      "```",
      "$ acme-agent install --system",
      "```",
    ].join("\n");
    const evidence = await rankEvidence("How do I install the agent?", contextOf(chunk("agent", text)), { analyzer });
    expect(evidence.asksProcedure).toBe(true);
    expect(evidence.units[0]).toMatchObject({ kind: "command", text: "$ acme-agent install --system" });
  });

  it("answers a question for a command with the sentence that offers one in code", async () => {
    const text =
      "The agent also ships a local copy of its manual, so that you can read the manual offline. Run `acme-agent manual` to open the local manual in your browser.";
    const evidence = await rankEvidence("Which command opens the local copy of the agent manual?", contextOf(chunk("agent", text)), {
      analyzer,
    });
    expect(evidence.expectedType).toBe("code");
    expect(evidence.units[0]?.text).toContain("`acme-agent manual`");
  });

  it("reads the question's names and numbers that a chunk lacks", async () => {
    const context = contextOf(chunk("memo", "The Oslo office opened in 2019."), chunk("other", "The Bergen office opened in 2021."));
    const evidence = await rankEvidence("When did the Bergen office open?", context, { analyzer });
    const oslo = evidence.units.find((unit) => unit.entry.chunk.docId === "memo");
    expect(oslo?.features.constraintsMissing).toBe(1);
    expect(evidence.units[0]?.entry.chunk.docId).toBe("other");
  });

  it("adds the dense signal with an embedding model and scores with the given dense scorer", async () => {
    const context = contextOf(chunk("a", "The canteen opens at noon."), chunk("b", "Lunch is served from twelve."));
    const embeddings = new TableEmbeddings({
      "q:When is lunch?": [1, 0],
      "When is lunch?": [1, 0],
      "The canteen opens at noon.": [0.9, 0.1],
      "Lunch is served from twelve.": [0.2, 0.9],
    });
    const denseScorer: FittedScorer = { name: "test-dense", intercept: -1, weights: { dense: 4 } };
    const evidence = await rankEvidence("When is lunch?", context, { analyzer, embeddings, denseScorer });
    expect(evidence.denseUsed).toBe(true);
    expect(evidence.scorer).toBe("test-dense");
    expect(evidence.units[0]?.text).toBe("The canteen opens at noon.");
    expect(evidence.units[0]?.dense).toBeCloseTo(0.994, 2);
  });

  it("falls back to the lexical scorer when the embedding model fails", async () => {
    const failing: EmbeddingsInterface = {
      embedQuery: async () => {
        throw new Error("model down");
      },
      embedDocuments: async () => {
        throw new Error("model down");
      },
    };
    const evidence = await rankEvidence("When is lunch?", contextOf(chunk("a", "Lunch is at noon.")), { analyzer, embeddings: failing });
    expect(evidence.denseUsed).toBe(false);
    expect(evidence.units[0]?.dense).toBeNull();
    expect(evidence.scorer).toBe("lexical");
  });

  it("reads a field name's two-digit years as the years a question spells out, and prefers the field it names exactly", async () => {
    const context = contextOf(
      chunk(
        "harbours-1",
        "port: Kestrel Bay; ships_lost_88_97: 12; crew_lost_88_97: 140; ships_lost_03_12: 3; crew_lost_03_12: 41",
        "harbours",
      ),
      chunk(
        "harbours-2",
        "port: Gull Point; ships_lost_88_97: 7; crew_lost_88_97: 65; ships_lost_03_12: 1; crew_lost_03_12: 9",
        "harbours",
      ),
    );
    const between = await rankEvidence("How many ships did Kestrel Bay lose between 2003 and 2012?", context, { analyzer });
    expect(between.units[0]?.cell).toEqual({ key: "ships_lost_03_12", value: "3" });
    expect(between.units[0]?.features.constraintsMissing).toBe(0);
    const earlier = await rankEvidence("How many crew were lost at Gull Point from 1988 to 1997?", context, { analyzer });
    expect(earlier.units[0]?.cell).toEqual({ key: "crew_lost_88_97", value: "65" });
  });

  it("among the cells of one row, prefers the field whose name the question covers", async () => {
    const context = contextOf(chunk("teams-1", "team: Otters; goal_attempts: 310; goals: 41; goals_conceded: 29", "teams"));
    const evidence = await rankEvidence("How many goals did the Otters score?", context, { analyzer });
    expect(evidence.units[0]?.cell).toEqual({ key: "goals", value: "41" });
  });

  it("reads a sentence made only of the question's words, its question words included, as an echo", async () => {
    const context = contextOf(
      chunk("hymns", "Could you tell me where the river goes? That line opens hymn number 212 of the Harbour Hymnal.", "hymns"),
    );
    const evidence = await rankEvidence('Which hymn opens with "Could you tell me where the river goes?"', context, { analyzer });
    const echo = evidence.units.find((unit) => unit.text.startsWith("Could you"));
    expect(echo?.echo).toBe(true);
    expect(evidence.units[0]?.text).toContain("212");
  });

  it("reads a phrase of the question kept whole in a sentence (phraseMatch), and not its words scattered", async () => {
    const context = contextOf(
      chunk(
        "queues",
        "A broker may hold many queues, but a message queue stands for one consumer group. The name dlq stands for dead letter queue. Letters are dead when no consumer takes them.",
      ),
    );
    const evidence = await rankEvidence("What does dlq stand for?", context, { analyzer });
    const phrase = evidence.units.find((unit) => unit.text.startsWith("The name dlq"));
    const scattered = evidence.units.find((unit) => unit.text.startsWith("A broker"));
    expect(phrase?.features.phraseMatch).toBe(1);
    expect(scattered?.features.phraseMatch).toBe(0);
    expect(evidence.units[0]).toBe(phrase);
  });

  it("gives an empty context no units", async () => {
    const evidence = await rankEvidence("Anything?", contextOf(), { analyzer });
    expect(evidence.units).toEqual([]);
    expect(evidence.passageCoverage).toBe(0);
  });
});
