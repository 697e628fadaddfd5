import { describe, expect, it } from "vitest";
import { segmentSentences, splitBlocks, splitSentences, stripMarkup } from "./split-sentences.js";

describe("splitSentences", () => {
  it("joins hard-wrapped lines of a paragraph before splitting sentences", () => {
    expect(splitSentences("The policy applies\nto all staff. It starts\non Monday.")).toEqual([
      "The policy applies to all staff.",
      "It starts on Monday.",
    ]);
  });

  it("treats a blank line as a paragraph break", () => {
    expect(splitSentences("First paragraph\n\nSecond paragraph")).toEqual(["First paragraph", "Second paragraph"]);
  });

  it("keeps headings and list items as separate sentences without their markers", () => {
    const text = ["# Leave policy", "Staff get ten days", "- first item", "* second item", "+ third item", "1. numbered", "2) other"].join(
      "\n",
    );
    expect(splitSentences(text)).toEqual([
      "Leave policy",
      "Staff get ten days",
      "first item",
      "second item",
      "third item",
      "numbered",
      "other",
    ]);
  });

  it("starts a new block at each list item and joins a list item's wrapped lines", () => {
    expect(splitSentences("You need:\n- a badge\n- a laptop\n  with its charger\n\nThen start.")).toEqual([
      "You need:",
      "a badge",
      "a laptop with its charger",
      "Then start.",
    ]);
  });

  it("keeps quotes and table rows as separate blocks", () => {
    expect(splitSentences("Intro line\n> quoted text\n| a | b |")).toEqual(["Intro line", "quoted text", "| a | b |"]);
  });

  it("makes each line of a fenced code block its own sentence and drops the fences", () => {
    const text = ["Install it", "```bash", "npm install docqa", "npm test", "```", "Then run", "it now."].join("\n");
    expect(splitSentences(text)).toEqual(["Install it", "npm install docqa", "npm test", "Then run it now."]);
  });

  it("treats ~~~ fences like ``` fences and does not read code lines as headings", () => {
    expect(splitSentences("~~~\n# a comment\n- not a list\n~~~")).toEqual(["# a comment", "- not a list"]);
  });

  it("strips HTML comments", () => {
    expect(splitSentences("Visible <!-- hidden note --> text.")).toEqual(["Visible text."]);
    expect(splitSentences("Before.\n<!--\nmulti-line\nhidden\n-->\nAfter.")).toEqual(["Before.", "After."]);
  });

  it("strips {{#include}} directives", () => {
    expect(splitSentences("Setup steps.\n{{#include ../snippets/setup.md}}\nMore steps.")).toEqual(["Setup steps.", "More steps."]);
  });

  it("keeps the text of Markdown links and drops their targets", () => {
    expect(splitSentences("See [the guide](https://example.org/guide) for details.")).toEqual(["See the guide for details."]);
    expect(splitSentences("Read [the FAQ][faq] first.")).toEqual(["Read the FAQ first."]);
  });

  it("drops images and HTML tags", () => {
    expect(splitSentences("![logo](logo.png) Welcome to <b>docqa</b> today.<br/>")).toEqual(["Welcome to docqa today."]);
  });

  it("collapses whitespace inside sentences", () => {
    expect(splitSentences("Too    many\t\tspaces here.")).toEqual(["Too many spaces here."]);
  });

  it("handles Windows line endings", () => {
    expect(splitSentences("Line one\r\ncontinues.\r\n\r\nNext one.")).toEqual(["Line one continues.", "Next one."]);
  });

  it("returns [] for empty or markup-only text", () => {
    expect(splitSentences("")).toEqual([]);
    expect(splitSentences("<!-- only a comment -->\n\n   \n```\n```")).toEqual([]);
  });
});

describe("stripMarkup", () => {
  it("removes an unterminated HTML comment to the end of the text", () => {
    expect(stripMarkup("Keep <!-- never closed\nstill hidden").trim()).toBe("Keep");
  });
});

describe("splitBlocks", () => {
  it("returns paragraphs and structural lines as blocks", () => {
    expect(splitBlocks("## Title\nline one\nline two\n\n- item")).toEqual(["Title", "line one line two", "item"]);
  });

  it("keeps a key alone on its line (a rendered JSON record's prose field) apart from the prose under it", () => {
    expect(splitBlocks("title: Steam engine\ntext:\nSteam engines were used in mills.\nThey powered factories.")).toEqual([
      "title: Steam engine",
      "text:",
      "Steam engines were used in mills. They powered factories.",
    ]);
    // A lead-in of several words is not a key: it still reads with the line it wraps onto.
    expect(splitBlocks("Open a terminal and enter:\nthe command below")).toEqual(["Open a terminal and enter: the command below"]);
    // Inside a paragraph, a word with a colon alone on its line is a hard-wrapped line.
    expect(splitBlocks("Run the following script from your\nshell:\n\n$ rustup update")).toEqual([
      "Run the following script from your shell:",
      "$ rustup update",
    ]);
  });
});

describe("stripMarkup on technical text", () => {
  it("removes inline HTML tags without leaving spaces, and keeps angle brackets that are not HTML", () => {
    expect(splitSentences("Welcome to <b>docqa</b>.")).toEqual(["Welcome to docqa."]);
    expect(splitSentences("Use Vec<String> here, and a<b when x>y.")).toEqual(["Use Vec<String> here, and a<b when x>y."]);
  });
});

describe("segmentSentences", () => {
  it("keeps titles, abbreviations and initials inside their sentence", () => {
    expect(segmentSentences("The fort stood at St. Augustine in 1565. Mr. Smith met Dr. Jones. J. R. R. Tolkien wrote it.")).toEqual([
      "The fort stood at St. Augustine in 1565.",
      "Mr. Smith met Dr. Jones.",
      "J. R. R. Tolkien wrote it.",
    ]);
    expect(segmentSentences("Use a tool, e.g. Git. It helps.")).toEqual(["Use a tool, e.g. Git.", "It helps."]);
  });

  it("keeps an initialism with the name it starts or ends, and ends the sentence before a word that opens one", () => {
    expect(segmentSentences("He joined the Harbour Town F.C. Hall of Fame in 1999. The U.S. Navy sailed.")).toEqual([
      "He joined the Harbour Town F.C. Hall of Fame in 1999.",
      "The U.S. Navy sailed.",
    ]);
    expect(
      segmentSentences("The museum opened in Washington, D.C. The building was new. She went to the U.S. In 1990 she came back."),
    ).toEqual(["The museum opened in Washington, D.C.", "The building was new.", "She went to the U.S.", "In 1990 she came back."]);
  });

  it("still ends a sentence at a word that only looks like an abbreviation, and at one that often ends a sentence", () => {
    expect(segmentSentences("The plan was set. Then it failed. It moved to the U.S. Later it grew.")).toEqual([
      "The plan was set.",
      "Then it failed.",
      "It moved to the U.S.",
      "Later it grew.",
    ]);
  });
});

describe("PDF and encyclopedia text", () => {
  it("mends a word hyphenated at a line break, and keeps a hyphen that belongs to the word", () => {
    expect(splitSentences("Retrieval is practically implemented us-\ning dense representations alone.")).toEqual([
      "Retrieval is practically implemented using dense representations alone.",
    ]);
    expect(splitSentences("It beats a strong Lucene-\nBM25 system and a well-\nknown baseline.")).toEqual([
      "It beats a strong Lucene-BM25 system and a well-known baseline.",
    ]);
  });

  it("keeps a reference mark with the sentence it ends", () => {
    expect(segmentSentences("Walker paid £850,000 to secure Roberts.[43] His time at the club was long.")).toEqual([
      "Walker paid £850,000 to secure Roberts.[43]",
      "His time at the club was long.",
    ]);
    expect(segmentSentences("He scored twice.[12][13] Then he left. See [Note 4] below.")).toEqual([
      "He scored twice.[12][13]",
      "Then he left.",
      "See [Note 4] below.",
    ]);
  });
});
