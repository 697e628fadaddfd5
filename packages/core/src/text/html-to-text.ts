/**
 * Text of HTML mixed into prose (Markdown with inline HTML, chunk text cut out of an HTML block),
 * read with `htmlparser2`'s tokenizing `Parser`: tags of known HTML elements are removed (block
 * elements leave a line break, so block boundaries survive), `script`, `style` and `template`
 * contents are dropped, comments and declarations leave a space, and entities are decoded. Everything that is not HTML stays
 * as written, so `Vec<String>`, `a<b when x>y` or `<https://example.org>` are kept.
 */
import { Parser } from "htmlparser2";

/** Elements whose tags separate blocks: an opening or closing tag becomes a line break. */
const blockElements = new Set([
  "address",
  "article",
  "aside",
  "blockquote",
  "body",
  "br",
  "caption",
  "center",
  "dd",
  "details",
  "dialog",
  "div",
  "dl",
  "dt",
  "fieldset",
  "figcaption",
  "figure",
  "footer",
  "form",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "head",
  "header",
  "hr",
  "html",
  "li",
  "listing",
  "main",
  "nav",
  "ol",
  "p",
  "pre",
  "section",
  "summary",
  "table",
  "tbody",
  "tfoot",
  "thead",
  "tr",
  "ul",
]);

/** Elements removed without a trace (their text stays). */
const inlineElements = new Set([
  "a",
  "abbr",
  "b",
  "big",
  "cite",
  "code",
  "del",
  "dfn",
  "em",
  "font",
  "i",
  "ins",
  "kbd",
  "link",
  "mark",
  "meta",
  "q",
  "s",
  "samp",
  "small",
  "span",
  "strike",
  "strong",
  "sub",
  "sup",
  "time",
  "tt",
  "u",
  "var",
  "wbr",
]);

/** Elements that leave a space: table cells and embedded media. */
const spacedElements = new Set(["audio", "iframe", "img", "picture", "source", "td", "th", "video"]);

/** Elements whose content is not prose and is dropped. */
const hiddenElements = new Set(["noscript", "script", "style", "template", "title"]);

/** A closing tag, to recognise among the tokens the parser drops (closing tags of elements not open). */
const closingTag = /<\/([a-z][a-z0-9]*)\s*>/gi;

/**
 * Extracts the text of HTML found in `text`.
 *
 * A tag counts as HTML when it names a known element (see the sets above) and, for inline
 * elements, every attribute has a value (`<b when x>` in `a<b when x>y` is prose). Block tags
 * become `\n` (so `</p><p>` is a blank line, a paragraph break), cells and media a space, inline
 * tags nothing. Anything the parser drops that is not a known closing tag (an unterminated `<` at
 * the end, a stray `</T>`) is kept verbatim.
 *
 * @example
 * ```ts
 * htmlToText("<p>Hello <b>world</b></p><script>x()</script>Vec<String>"); // "\nHello world\nVec<String>"
 * ```
 */
export function htmlToText(text: string): string {
  if (!/[<&]/.test(text)) return text;
  const output: string[] = [];
  let cursor = 0;
  let hiddenDepth = 0;
  let valuelessAttribute = false;
  const keepDropped = (dropped: string) => {
    output.push(dropped.replace(closingTag, (tag, name: string) => (isElement(name.toLowerCase()) ? tagText(name.toLowerCase()) : tag)));
  };
  /** Accounts for the source range of the current event, writing `replacement` for it. */
  const emit = (replacement: (source: string) => string) => {
    const start = parser.startIndex;
    const end = parser.endIndex + 1;
    if (start < cursor) return;
    if (start > cursor) keepDropped(text.slice(cursor, start));
    output.push(replacement(text.slice(start, end)));
    cursor = end;
  };
  const parser = new Parser(
    {
      onopentagname() {
        valuelessAttribute = false;
      },
      onattribute(_name, _value, quote) {
        if (quote === undefined) valuelessAttribute = true;
      },
      onopentag(name, _attributes, isImplied) {
        if (isImplied) return;
        const html = isElement(name) && !(valuelessAttribute && inlineElements.has(name));
        if (html && hiddenElements.has(name)) hiddenDepth++;
        emit((source) => (html ? tagText(name) : source));
      },
      onclosetag(name, isImplied) {
        if (isImplied) return;
        if (hiddenElements.has(name)) hiddenDepth = Math.max(0, hiddenDepth - 1);
        emit((source) => (isElement(name) ? tagText(name) : source));
      },
      ontext(data) {
        emit(() => (hiddenDepth > 0 ? "" : data));
      },
      oncomment() {
        emit(() => " ");
      },
      onprocessinginstruction() {
        emit(() => " ");
      },
    },
    { decodeEntities: true },
  );
  parser.write(text);
  parser.end();
  if (cursor < text.length) keepDropped(text.slice(cursor));
  return output.join("");
}

function isElement(name: string): boolean {
  return blockElements.has(name) || inlineElements.has(name) || spacedElements.has(name) || hiddenElements.has(name);
}

function tagText(name: string): string {
  if (blockElements.has(name)) return "\n";
  if (spacedElements.has(name)) return " ";
  return "";
}
