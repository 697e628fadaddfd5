import { describe, expect, it } from "vitest";
import { createEnglishAnalyzer, englishAnalyzerNamed } from "./analyzer.js";
import { englishStopWords } from "./english-stop-words.js";

const analyzer = createEnglishAnalyzer();

describe("createEnglishAnalyzer", () => {
  it("is named english-porter-v2 by default (v1 without folding diacritics)", () => {
    expect(analyzer.name).toBe("english-porter-v2");
  });

  it("records disabled stemming and custom stop words in its name", () => {
    expect(createEnglishAnalyzer({ stem: false }).name).toBe("english-porter-v2-nostem");
    expect(createEnglishAnalyzer({ stopWords: new Set(["foo"]) }).name).toBe("english-porter-v2-customstop");
    expect(createEnglishAnalyzer({ stem: false, stopWords: new Set() }).name).toBe("english-porter-v2-nostem-customstop");
  });

  it("folds the diacritics of Latin letters, so a word typed without them matches the text written with them", () => {
    expect(analyzer.analyze("Pokémon cafés naïve Ünïcödé Straße Øresund Łódź")).toEqual(
      analyzer.analyze("Pokemon cafes naive Unicode Strasse Oresund Lodz"),
    );
    expect(analyzer.analyze("Pokémon")).toEqual(["pokemon"]);
    // Other scripts keep their marks: Cyrillic й is not и.
    expect(analyzer.analyze("Достоевский")).toEqual(["достоевский"]);
    const unfolded = createEnglishAnalyzer({ foldDiacritics: false });
    expect(unfolded.name).toBe("english-porter-v1");
    expect(unfolded.analyze("Pokémon")).toEqual(["pokémon"]);
  });

  it("recreates an analyzer from its recorded name (englishAnalyzerNamed)", () => {
    expect(englishAnalyzerNamed("english-porter-v1")?.analyze("cafés")).toEqual(["cafés"]);
    expect(englishAnalyzerNamed("english-porter-v2-nostem")?.analyze("cafés running")).toEqual(["cafes", "running"]);
    expect(englishAnalyzerNamed("english-porter-v2-customstop")).toBeUndefined();
  });

  it("passing the default stop word set explicitly keeps the default name", () => {
    expect(createEnglishAnalyzer({ stopWords: englishStopWords }).name).toBe("english-porter-v2");
  });

  it("removes stop words", () => {
    expect(analyzer.analyze("the cat and the hat are in a box")).toEqual(["cat", "hat", "box"]);
  });

  it("removes stop words regardless of case", () => {
    expect(analyzer.analyze("THE Cat IS On The Mat")).toEqual(["cat", "mat"]);
  });

  it("keeps stop words when given an empty stop word set", () => {
    expect(createEnglishAnalyzer({ stopWords: new Set() }).analyze("the cat")).toEqual(["the", "cat"]);
  });

  it("uses a custom stop word set instead of the default", () => {
    expect(createEnglishAnalyzer({ stopWords: new Set(["cat"]) }).analyze("the cat sat")).toEqual(["the", "sat"]);
  });

  it("stems with the Porter stemmer", () => {
    expect(analyzer.analyze("running")).toEqual(["run"]);
    expect(analyzer.analyze("policies")).toEqual(["polici"]);
    expect(analyzer.analyze("Policy")).toEqual(["polici"]);
    expect(analyzer.analyze("connected connections connecting")).toEqual(["connect", "connect", "connect"]);
  });

  it("does not stem when stemming is disabled", () => {
    expect(createEnglishAnalyzer({ stem: false }).analyze("running policies")).toEqual(["running", "policies"]);
  });

  it("returns terms in order, with repetitions", () => {
    expect(analyzer.analyze("dogs chase cats; cats chase dogs")).toEqual(["dog", "chase", "cat", "cat", "chase", "dog"]);
  });

  it("removes the possessive 's (straight and curly apostrophes)", () => {
    expect(analyzer.analyze("John's car")).toEqual(["john", "car"]);
    expect(analyzer.analyze("the employee\u2019s badge")).toEqual(["employe", "badg"]);
  });

  it("drops inner apostrophes of contractions instead of splitting the word", () => {
    expect(createEnglishAnalyzer({ stem: false }).analyze("don't")).toEqual(["dont"]);
  });

  it("applies NFKC normalisation, so fullwidth letters match ASCII", () => {
    expect(analyzer.analyze("\uff32\uff55\uff4e\uff4e\uff49\uff4e\uff47")).toEqual(["run"]);
    expect(analyzer.analyze("\uff32\uff55\uff4e\uff4e\uff49\uff4e\uff47")).toEqual(analyzer.analyze("running"));
  });

  it("applies NFKC to ligatures and fullwidth digits", () => {
    expect(analyzer.analyze("\ufb01le \uff11\uff12\uff13")).toEqual(["file", "123"]);
  });

  it("splits Han text into overlapping bigrams", () => {
    expect(analyzer.analyze("東京都")).toEqual(["東京", "京都"]);
    expect(analyzer.analyze("我爱北京")).toEqual(["我爱", "爱北", "北京"]);
  });

  it("keeps a single Han character as a unigram", () => {
    expect(analyzer.analyze("猫")).toEqual(["猫"]);
  });

  it("separates Han runs from adjacent Latin letters", () => {
    expect(analyzer.analyze("東京tower")).toEqual(["東京", "tower"]);
  });

  it("keeps digits", () => {
    expect(analyzer.analyze("Form 1099 due 2024")).toEqual(["form", "1099", "due", "2024"]);
  });

  it("keeps words mixing letters and digits unstemmed", () => {
    expect(analyzer.analyze("h264 codecs")).toEqual(["h264", "codec"]);
  });

  it("drops tokens longer than 64 characters and keeps those of exactly 64", () => {
    const sixtyFour = "7".repeat(64);
    const sixtyFive = "7".repeat(65);
    expect(analyzer.analyze(`${sixtyFour} ok`)).toEqual([sixtyFour, "ok"]);
    expect(analyzer.analyze(`${sixtyFive} ok`)).toEqual(["ok"]);
  });

  it("splits on punctuation and returns [] for text without words", () => {
    expect(analyzer.analyze("e-mail/reset")).toEqual(["e", "mail", "reset"]);
    expect(analyzer.analyze("  ... !!! --- ")).toEqual([]);
    expect(analyzer.analyze("")).toEqual([]);
  });
});
