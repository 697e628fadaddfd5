/**
 * Markdown loading with `unified` + `remark-parse` (CommonMark), `remark-gfm` (tables, task lists,
 * strikethrough) and `remark-frontmatter`: one section per top-level heading (ATX or setext),
 * whose `section` metadata is the heading path ("Chapter > Topic"). A section's text is the
 * Markdown source of its blocks, verbatim (heading line, indented and fenced code, HTML blocks),
 * except tables: each row of a table is a section of its own, rendered with its header like a CSV
 * row (`Setting: MAX_UPLOAD_BYTES; Default: 50 MB`), indexed as one chunk, so that a question about
 * one row retrieves it and the answer reads its cells. YAML or TOML front matter is never indexed as text, nor are link reference
 * definitions (`[label]: url`) that end a section; the title is the front matter's
 * `title`, else the first level-1 heading, else the file name.
 */
import type { Root, RootContent } from "mdast";
import { toString as plainText } from "mdast-util-to-string";
import remarkFrontmatter from "remark-frontmatter";
import remarkGfm from "remark-gfm";
import remarkParse from "remark-parse";
import { unified } from "unified";
import { parse as parseYaml } from "yaml";
import { DocqaError } from "../../errors/docqa-error.js";
import { stripExtension } from "./load-pdf.js";
import { decodeChecked } from "./load-plain-text.js";
import type { FileInput, FileLoader, LoadedFile, LoadedSection, LoaderLimits } from "./loaded-file.js";
import { columnNames, renderRow } from "./table-rows.js";

/**
 * Loads a `.md` file.
 *
 * @throws {DocqaError} `empty_file` (also when the file holds only front matter),
 *   `invalid_encoding`, `file_too_large`.
 */
export async function loadMarkdown(file: FileInput, limits: LoaderLimits): Promise<LoadedFile> {
  const { text, encoding, warnings } = decodeChecked(file, limits);
  const { frontMatterTitle, frontMatterError, sections } = parseMarkdown(text);
  if (frontMatterError) warnings.push(`${file.name}: the front matter is not valid YAML (${frontMatterError}); its title was not used`);
  if (sections.length === 0) {
    throw new DocqaError("empty_file", `${file.name} has no text besides its front matter`, { component: "ingestion" });
  }
  const title = frontMatterTitle ?? sections.find((section) => section.level === 1)?.heading ?? stripExtension(file.name);
  return {
    documents: [
      {
        idSuffix: "",
        title,
        metadata: { encoding },
        sections: sections.map(
          ({ text: sectionText, path, row }): LoadedSection => ({
            text: sectionText,
            metadata: { ...(path ? { section: path } : {}), ...(row === undefined ? {} : { row }) },
            ...(row === undefined ? {} : { preChunked: true }),
          }),
        ),
      },
    ],
    warnings,
  };
}

/** One heading section of a Markdown text. */
export interface MarkdownSection {
  /** Plain text of the section's heading (`""` for text before the first heading). */
  heading: string;
  /** Heading depth, 1 to 6 (0 before the first heading). */
  level: number;
  /** Headings from the top level down to this one, joined with ` > `; `""` before the first heading. */
  path: string;
  /**
   * Markdown source of the section, heading line included, trimmed; for a table row, the row's
   * cells with their header (`Header: value; Header: value`, empty cells left out).
   */
  text: string;
  /** For a table row: its number in its table, the header being row 1; undefined for text. */
  row?: number | undefined;
}

/** A parsed Markdown text: its sections and the `title` of its YAML front matter, if any. */
export interface ParsedMarkdown {
  frontMatterTitle: string | undefined;
  /** Why the YAML front matter could not be read, when it is invalid. */
  frontMatterError: string | undefined;
  sections: MarkdownSection[];
}

const processor = unified().use(remarkParse).use(remarkGfm).use(remarkFrontmatter, ["yaml", "toml"]);

/**
 * Parses Markdown into heading sections. Only top-level headings open sections (a `#` line inside
 * a list, quote, code block or HTML block does not). Front matter is left out of every section.
 */
export function parseMarkdown(markdown: string): ParsedMarkdown {
  const tree = processor.parse(markdown) as Root;
  const sections: MarkdownSection[] = [];
  const path: (string | undefined)[] = [];
  let frontMatterTitle: string | undefined;
  let frontMatterError: string | undefined;
  let current: Omit<MarkdownSection, "text"> = { heading: "", level: 0, path: "" };
  let blocks: RootContent[] = [];
  const flushText = (run: RootContent[]) => {
    const first = run[0]?.position?.start.offset;
    const last = run.at(-1)?.position?.end.offset;
    const text = first === undefined || last === undefined ? "" : markdown.slice(first, last).trim();
    if (text !== "") sections.push({ ...current, text });
  };
  const flush = () => {
    let run: RootContent[] = [];
    for (const block of blocks) {
      if (block.type !== "table") {
        run.push(block);
        continue;
      }
      flushText(run);
      run = [];
      const [header, ...rows] = block.children.map((row) => row.children.map((cell) => plainText(cell).replace(/\s+/g, " ").trim()));
      const names = columnNames(header ?? []);
      rows.forEach((cells, index) => {
        const text = renderRow(names, cells);
        if (text !== "") sections.push({ ...current, text, row: index + 2 });
      });
    }
    flushText(run);
    blocks = [];
  };
  for (const node of tree.children) {
    if (node.type === "yaml") {
      try {
        frontMatterTitle ??= titleOf(parseYaml(node.value));
      } catch (error) {
        frontMatterError ??= (error as Error).message.split("\n")[0];
      }
      continue;
    }
    // TOML front matter (`+++`): left out; remark-frontmatter does not declare its node type to mdast.
    if ((node.type as string) === "toml") continue;
    // A link reference definition (`[install]: https://…`) renders as nothing; at a section's end
    // it would be indexed and quoted as text, so it is left out (between blocks it stays, verbatim).
    if (node.type === "definition") continue;
    if (node.type === "heading") {
      flush();
      const heading = plainText(node).replace(/\s+/g, " ").trim();
      path.splice(node.depth - 1);
      path[node.depth - 1] = heading;
      current = { heading, level: node.depth, path: path.filter((part) => part !== undefined && part !== "").join(" > ") };
    }
    blocks.push(node);
  }
  flush();
  return { frontMatterTitle, frontMatterError, sections };
}

/** Splits Markdown at headings; each section keeps its heading line as its first line. See {@link parseMarkdown}. */
export function markdownSections(markdown: string): MarkdownSection[] {
  return parseMarkdown(markdown).sections;
}

/** The non-empty string `title` of parsed front matter, else undefined. */
function titleOf(frontMatter: unknown): string | undefined {
  if (typeof frontMatter !== "object" || frontMatter === null) return undefined;
  const title = (frontMatter as Record<string, unknown>).title;
  return typeof title === "string" && title.trim() !== "" ? title.trim() : undefined;
}

/** The `.md` loader, registered in `file-loaders.ts`. */
export const markdownLoader: FileLoader<"md"> = {
  format: "md",
  aliases: ["markdown"],
  load: (file, options) => loadMarkdown(file, options.limits),
};
