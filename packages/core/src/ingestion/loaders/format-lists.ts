/**
 * The lists of formats shown to users, rendered from the loader registry (`fileLoaders`), so that
 * no list of formats is written by hand. In Markdown (`docs/`, the READMEs) a list sits between
 * marks, `<!-- formats:names -->PDF, DOCX, ...<!-- /formats -->` (see `text/marked-lists.ts`),
 * which {@link rewriteFormatLists} fills from the registry: the unit test `format-lists.test.ts`
 * checks every marked list, rewrites them with `vitest -u`, and refuses a list of every format
 * left outside the marks.
 */
import { countMarkedLists, joinList, type ListConjunction, rewriteMarkedLists, withoutMarkedLists } from "../../text/marked-lists.js";
import { fileLoaders } from "./file-loaders.js";

/**
 * How a list of formats is written:
 * - `names`: upper-case format names, `PDF, DOCX, TXT, MD, JSON, CSV`;
 * - `types`: the documents' `type` metadata as code, `` `pdf`, `docx`, ... ``;
 * - `extensions`: every extension each loader reads, its aliases after a slash, `pdf, docx, txt/text, md/markdown, ...`.
 */
export type FormatListStyle = "names" | "types" | "extensions";

/** The word before a list's last item; none joins every item with a comma. */
export type FormatListConjunction = ListConjunction;

const formatListStyles: readonly FormatListStyle[] = ["names", "types", "extensions"];

/** The mark of a list of formats in Markdown: `<!-- formats:<style> -->`. */
const formatsMark = "formats";

/**
 * The registered formats written in `style`, in the order of `fileLoaders`.
 *
 * @example
 * ```ts
 * formatList("names", "or"); // "PDF, DOCX, TXT, MD, JSON or CSV"
 * ```
 */
export function formatList(style: FormatListStyle, conjunction?: FormatListConjunction): string {
  const items = fileLoaders.map((loader) => {
    if (style === "names") return loader.format.toUpperCase();
    if (style === "types") return `\`${loader.format}\``;
    return [loader.format, ...loader.aliases].join("/");
  });
  return joinList(items, conjunction);
}

/**
 * `markdown` with every marked list of formats rendered anew from the registry.
 *
 * @throws {Error} for a mark naming an unknown style.
 */
export function rewriteFormatLists(markdown: string): string {
  return rewriteMarkedLists(markdown, formatsMark, (style, conjunction) => {
    if (!formatListStyles.includes(style as FormatListStyle)) {
      throw new Error(`unknown format list style ${style} (known: ${formatListStyles.join(", ")})`);
    }
    return formatList(style as FormatListStyle, conjunction);
  });
}

/** How many marked lists of formats `markdown` holds. */
export function countFormatLists(markdown: string): number {
  return countMarkedLists(markdown, formatsMark);
}

/** Lists naming at least this many of the registered formats count as lists of every format. */
const listedFormatsThreshold = Math.max(2, fileLoaders.length - 1);

/**
 * The lists of formats written outside the marks: runs of format names or extensions (any case,
 * in code or not) joined by commas, slashes, `and` or `or` that name at least all formats but one.
 * Shorter runs (`TXT, Markdown, CSV, JSON` for the text formats) are prose, not lists of formats.
 */
export function unmarkedFormatLists(markdown: string): string[] {
  const formatOf = new Map(fileLoaders.flatMap((loader) => [loader.format, ...loader.aliases].map((name) => [name, loader.format])));
  const name = `\`?(?:${[...formatOf.keys()].join("|")})\`?`;
  const run = new RegExp(`(?<!\\w)${name}(?:(?:, (?:and |or )?|/| and | or )${name})+(?!\\w)`, "gi");
  return [...withoutMarkedLists(markdown, formatsMark).matchAll(run)]
    .map((match) => match[0])
    .filter((list) => {
      const named = new Set(
        list.split(/, (?:and |or )?|\/| and | or /).map((item) => formatOf.get(item.replaceAll("`", "").toLowerCase())),
      );
      return named.size >= listedFormatsThreshold;
    });
}
