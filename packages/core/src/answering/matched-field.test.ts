import { describe, expect, it } from "vitest";
import { chunkId } from "../stores/chunk-record.js";
import { textChunk } from "../testing/text-chunk.js";
import { createEnglishAnalyzer } from "../text/analyzer.js";
import { buildContext } from "./build-context.js";
import { matchedField } from "./matched-field.js";
import { rankEvidence } from "./rank-evidence.js";

const analyzer = createEnglishAnalyzer();
const chunk = (docId: string, text: string) => textChunk(text, { id: chunkId(docId, 0), docId, title: docId });
/** Documents written for this test (carriers and figures invented). */
const carriers = [
  "carrier: Norda Air; seat_km: 6525658894; incidents_85_99: 24; fatal_accidents_85_99: 12; fatalities_85_99: 407; fatalities_00_14: 51",
  "carrier: Lumen Air; seat_km: 3197672318; incidents_85_99: 6; fatal_accidents_85_99: 1; fatalities_85_99: 88; fatalities_00_14: 0",
];

async function fieldFor(question: string, ...texts: string[]) {
  const context = buildContext(
    texts.map((text, index) => ({ chunk: chunk(`doc${index}`, text), score: 1 })),
    { maxDocChars: 4000, maxContextChars: 16_000 },
  );
  return matchedField(await rankEvidence(question, context, { analyzer }), context);
}

describe("matchedField", () => {
  it("names the row's entity, the field the question names, its value and its source", async () => {
    expect(await fieldFor("How many fatalities did Norda Air have between 2000 and 2014?", ...carriers)).toBe(
      "carrier = Norda Air: fatalities_00_14 = 51 [Source: doc_1]",
    );
  });

  it("reads a question that picks the row by another field", async () => {
    expect(await fieldFor("Which carrier had 407 fatalities between 1985 and 1999?", ...carriers)).toBe(
      "fatalities_85_99 = 407: carrier = Norda Air [Source: doc_1]",
    );
  });

  it("gives nothing for prose, for a field the question does not name, or for a row it does not name", async () => {
    expect(await fieldFor("When did Norda Air begin flying?", "Norda Air began flying in 1962 from a grass strip.")).toBeUndefined();
    expect(await fieldFor("What is the population of Norda?", ...carriers)).toBeUndefined();
    expect(await fieldFor("How many fatalities were there between 2000 and 2014?", ...carriers)).toBeUndefined();
  });
});
