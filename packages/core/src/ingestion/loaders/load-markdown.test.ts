import { describe, expect, it } from "vitest";
import { loadMarkdown, markdownSections } from "./load-markdown.js";

const limits = { maxFileBytes: 10_000_000, maxExtractedChars: 1_000_000 };
const markdownFile = (text: string) => ({ name: "guide.md", bytes: new TextEncoder().encode(text) });

describe("markdownSections", () => {
  it("splits at ATX and setext headings outside code fences, keeping the heading path", () => {
    const markdown = [
      "Intro text.",
      "",
      "# Guide",
      "Start here.",
      "",
      "## Install",
      "```sh",
      "# not a heading",
      "```",
      "",
      "Usage",
      "-----",
      "Run it.",
    ].join("\n");
    expect(markdownSections(markdown).map(({ path, text }) => ({ path, text }))).toEqual([
      { path: "", text: "Intro text." },
      { path: "Guide", text: "# Guide\nStart here." },
      { path: "Guide > Install", text: "## Install\n```sh\n# not a heading\n```" },
      { path: "Guide > Usage", text: "Usage\n-----\nRun it." },
    ]);
  });

  it("leaves out the link reference definitions that end a section, which render as nothing", () => {
    const markdown = [
      "## Windows",
      "Go to the [installer page][install] and follow the instructions.",
      "",
      "[install]: https://example.org/install",
      "[other]: https://example.org/other",
      "",
      "## Linux",
      "See [the guide][guide].",
      "",
      "[guide]: https://example.org/guide",
      "",
      "Then run the script.",
    ].join("\n");
    expect(markdownSections(markdown).map(({ text }) => text)).toEqual([
      "## Windows\nGo to the [installer page][install] and follow the instructions.",
      // Between two blocks the source stays verbatim.
      "## Linux\nSee [the guide][guide].\n\n[guide]: https://example.org/guide\n\nThen run the script.",
    ]);
  });

  it("keeps indented code, HTML blocks and quotes verbatim, makes each table row a section, and opens sections only at top-level headings", () => {
    const markdown = [
      "# Reference",
      "Example:",
      "",
      "    # indented code, not a heading",
      "    ---",
      "",
      "<div>",
      "# inside an HTML block",
      "</div>",
      "",
      "| a | b |",
      "|---|---|",
      "| 1 | 2 |",
      "",
      "> # a quoted heading",
      "",
      "- # a heading in a list item",
      "",
      "### The *fast* path",
      "Text.",
    ].join("\n");
    expect(markdownSections(markdown)).toEqual([
      {
        heading: "Reference",
        level: 1,
        path: "Reference",
        text: markdown.slice(0, markdown.indexOf("\n\n| a ")),
      },
      { heading: "Reference", level: 1, path: "Reference", text: "a: 1; b: 2", row: 2 },
      {
        heading: "Reference",
        level: 1,
        path: "Reference",
        text: markdown.slice(markdown.indexOf("> # a quoted"), markdown.indexOf("\n\n### ")),
      },
      { heading: "The fast path", level: 3, path: "Reference > The fast path", text: "### The *fast* path\nText." },
    ]);
  });
});

describe("loadMarkdown", () => {
  it("indexes each table row as its own chunk, with its header's names and its section", async () => {
    const loaded = await loadMarkdown(
      markdownFile(
        "# Settings\n\nThe service reads these.\n\n| Setting | Default | Meaning |\n|---|---|---|\n| `MAX_USERS` | 50 | Seats |\n| TIMEOUT | | Seconds |\n",
      ),
      limits,
    );
    expect(loaded.documents[0]?.sections).toEqual([
      { text: "# Settings\n\nThe service reads these.", metadata: { section: "Settings" } },
      { text: "Setting: MAX_USERS; Default: 50; Meaning: Seats", metadata: { section: "Settings", row: 2 }, preChunked: true },
      { text: "Setting: TIMEOUT; Meaning: Seconds", metadata: { section: "Settings", row: 3 }, preChunked: true },
    ]);
  });

  it("takes the title from YAML front matter and never indexes the front matter", async () => {
    const loaded = await loadMarkdown(markdownFile("---\ntitle: Leave policy\nowner: hr\n---\n\n# Overview\nStaff get 25 days.\n"), limits);
    expect(loaded.documents).toEqual([
      {
        idSuffix: "",
        title: "Leave policy",
        metadata: { encoding: "utf-8" },
        sections: [{ text: "# Overview\nStaff get 25 days.", metadata: { section: "Overview" } }],
      },
    ]);
    expect(loaded.warnings).toEqual([]);
  });

  it("falls back to the first level-1 heading, then the file name, and warns about invalid front matter", async () => {
    const invalid = await loadMarkdown(markdownFile("---\ntitle: [unclosed\n---\nBody text.\n\n# First\nMore."), limits);
    expect(invalid.documents[0]?.title).toBe("First");
    expect(invalid.documents[0]?.sections.map((section) => section.text)).toEqual(["Body text.", "# First\nMore."]);
    expect(invalid.warnings).toEqual([
      expect.stringMatching(/^guide\.md: the front matter is not valid YAML \(.+\); its title was not used$/),
    ]);
    const untitled = await loadMarkdown(markdownFile('+++\ntitle = "TOML"\n+++\n## Only level two\nText.'), limits);
    expect(untitled.documents[0]?.title).toBe("guide");
    expect(untitled.documents[0]?.sections).toEqual([{ text: "## Only level two\nText.", metadata: { section: "Only level two" } }]);
  });

  it("rejects a file with nothing but front matter", async () => {
    await expect(loadMarkdown(markdownFile("---\ntitle: Empty\n---\n"), limits)).rejects.toMatchObject({ code: "empty_file" });
  });
});
