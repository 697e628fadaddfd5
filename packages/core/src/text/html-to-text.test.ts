import { describe, expect, it } from "vitest";
import { htmlToText } from "./html-to-text.js";
import { splitSentences } from "./split-sentences.js";

describe("htmlToText", () => {
  it("removes inline tags without a trace and turns block tags into line breaks", () => {
    expect(htmlToText('<p>Hello <b>world</b> and <a href="/x">more</a></p><p>Next<br/>line</p>')).toBe(
      "\nHello world and more\n\nNext\nline\n",
    );
  });

  it("drops script and style contents and comments", () => {
    expect(htmlToText("<style>p { color: red }</style>Text<script>alert('x')</script> after<!-- note -->.")).toBe("Text after .");
  });

  it("keeps text that only looks like tags", () => {
    expect(htmlToText("Use Vec<String> here, and a<b when x>y.")).toBe("Use Vec<String> here, and a<b when x>y.");
    expect(htmlToText("if (a < b && c > d) return x<3;")).toBe("if (a < b && c > d) return x<3;");
    expect(htmlToText("See <https://example.org/a?b=1&c=2> now")).toBe("See <https://example.org/a?b=1&c=2> now");
    expect(htmlToText("Generic </T> close and an open <b tag at the end")).toBe("Generic </T> close and an open <b tag at the end");
  });

  it("treats stray closing tags of known elements as tags (a chunk cut inside an HTML block)", () => {
    expect(htmlToText("</td></tr>Staff</div> and </em>more")).toBe(" \nStaff\n and more");
  });

  it("renders table cells as spaces and rows as lines, and decodes entities", () => {
    expect(htmlToText("<table><tr><th>Role</th><th>Days</th></tr><tr><td>Staff &amp; temps</td><td>25</td></tr></table>")).toBe(
      "\n\n Role  Days \n\n Staff & temps  25 \n\n",
    );
    expect(htmlToText("AT&T &lt;b&gt; &copy;")).toBe("AT&T <b> ©");
  });

  it("returns text without markup unchanged", () => {
    const text = "No markup here: 3 > 2.";
    expect(htmlToText(text)).toBe(text);
  });
});

describe("splitSentences on HTML", () => {
  it("keeps HTML block boundaries as sentence boundaries and drops script text", () => {
    expect(
      splitSentences("<div><h2>Leave</h2><p>Staff get ten days</p><script>track()</script><ul><li>first</li><li>second</li></ul></div>"),
    ).toEqual(["Leave", "Staff get ten days", "first", "second"]);
  });
});
