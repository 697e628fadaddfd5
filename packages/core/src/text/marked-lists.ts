/**
 * Lists written into Markdown from a registry: a list sits between marks,
 * `<!-- <mark>:<style>[ and|or] --> … <!-- /<mark> -->` (invisible once rendered), and is
 * rendered anew from the registry by its owner (the loaders' formats, the store backends'
 * names), so that no list shown to users is kept by hand. A unit test per registry checks the
 * documentation and rewrites it with `vitest -u`.
 */

/** The word before a list's last item; none joins every item with a comma. */
export type ListConjunction = "and" | "or";

/** Renders the list of a mark's `style`, its last item after `conjunction` when given. */
export type ListRenderer = (style: string, conjunction: ListConjunction | undefined) => string;

/** `items` joined with commas, the last after `conjunction` when given: `a, b or c`. */
export function joinList(items: readonly string[], conjunction?: ListConjunction): string {
  if (conjunction === undefined || items.length < 2) return items.join(", ");
  return `${items.slice(0, -1).join(", ")} ${conjunction} ${items.at(-1)}`;
}

/** The marked lists of `mark`: groups open mark, style, conjunction, list, close mark. */
function markedLists(mark: string): RegExp {
  return new RegExp(`(<!-- ${mark}:([a-z-]+)(?: (and|or))? -->)([^<]*)(<!-- /${mark} -->)`, "g");
}

/**
 * `markdown` with every list marked `mark` rendered anew by `render`.
 *
 * @throws whatever `render` throws for a style it does not know.
 * @example
 * ```ts
 * rewriteMarkedLists("(<!-- formats:names -->PDF<!-- /formats -->)", "formats", () => "PDF, TXT");
 * // "(<!-- formats:names -->PDF, TXT<!-- /formats -->)"
 * ```
 */
export function rewriteMarkedLists(markdown: string, mark: string, render: ListRenderer): string {
  return markdown.replace(
    markedLists(mark),
    (_whole, open: string, style: string, conjunction: ListConjunction | undefined, _list: string, close: string) =>
      `${open}${render(style, conjunction)}${close}`,
  );
}

/** How many lists marked `mark` `markdown` holds. */
export function countMarkedLists(markdown: string, mark: string): number {
  return [...markdown.matchAll(markedLists(mark))].length;
}

/** `markdown` without its lists marked `mark` (marks included). */
export function withoutMarkedLists(markdown: string, mark: string): string {
  return markdown.replace(markedLists(mark), "");
}
