import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { countFormatLists, formatList, rewriteFormatLists, unmarkedFormatLists } from "./format-lists.js";

const repository = fileURLToPath(new URL("../../../../../", import.meta.url));

/** The Markdown shown to users: `docs/`, the root README and each package's README. */
const markdownFiles = [
  ...readdirSync(`${repository}docs`)
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
  "README.md",
  ...readdirSync(`${repository}packages`).flatMap((name) => {
    try {
      readFileSync(`${repository}packages/${name}/README.md`);
      return [`packages/${name}/README.md`];
    } catch {
      return [];
    }
  }),
].sort();

const markdown = (path: string) => readFileSync(`${repository}${path}`, "utf8");
/** The files that hold marked lists of formats. */
const markedFiles = markdownFiles.filter((path) => countFormatLists(markdown(path)) > 0);

describe("format lists", () => {
  it("renders the registered formats in each style, in the loaders' order", () => {
    expect(formatList("names")).toBe("PDF, DOCX, TXT, MD, JSON, CSV");
    expect(formatList("names", "and")).toBe("PDF, DOCX, TXT, MD, JSON and CSV");
    expect(formatList("types")).toBe("`pdf`, `docx`, `txt`, `md`, `json`, `csv`");
    expect(formatList("extensions", "or")).toBe("pdf, docx, txt/text, md/markdown, json/ndjson/jsonl or csv");
  });

  it("rewrites a marked list and leaves the rest of the text alone", () => {
    expect(rewriteFormatLists("Formats (<!-- formats:names or -->PDF or TXT<!-- /formats -->), and more.")).toBe(
      "Formats (<!-- formats:names or -->PDF, DOCX, TXT, MD, JSON or CSV<!-- /formats -->), and more.",
    );
    expect(() => rewriteFormatLists("<!-- formats:colours -->x<!-- /formats -->")).toThrow(/unknown format list style colours/);
  });

  it("finds lists of every format written outside the marks, but not shorter runs", () => {
    expect(unmarkedFormatLists("Choose files (PDF, DOCX, TXT, Markdown, JSON, CSV).")).toEqual(["PDF, DOCX, TXT, Markdown, JSON, CSV"]);
    expect(unmarkedFormatLists("`type` (`pdf`, `docx`, `md`, `txt`, `json` or `csv`)")).toEqual([
      "`pdf`, `docx`, `md`, `txt`, `json` or `csv`",
    ]);
    expect(unmarkedFormatLists("Text files (TXT, Markdown, CSV, JSON) are decoded.")).toEqual([]);
    expect(unmarkedFormatLists("Files (<!-- formats:names -->PDF, DOCX, TXT, MD, JSON, CSV<!-- /formats -->).")).toEqual([]);
  });

  it("keeps the lists of formats in the documentation marked", () => {
    const unmarked = markdownFiles.flatMap((path) => unmarkedFormatLists(markdown(path)).map((list) => `${path}: ${list}`));
    expect(unmarked).toEqual([]);
    expect(markedFiles).toEqual(["docs/chat-api.md", "docs/cli.md", "docs/ingestion.md", "docs/web-ui.md", "packages/cli/README.md"]);
  });

  // `vitest -u` writes the lists of a new loader into the documentation.
  it.each(markedFiles)("%s: every marked list names the registered formats", async (path) => {
    await expect(rewriteFormatLists(markdown(path))).toMatchFileSnapshot(`${repository}${path}`);
  });
});
