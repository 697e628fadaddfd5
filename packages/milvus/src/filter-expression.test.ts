import { DocqaError, type Principal } from "@docqa/core";
import { principalAccessTokens } from "@docqa/core/stores";
import { describe, expect, it } from "vitest";
import {
  afterPrimaryKey,
  chunkFilterExpression,
  derivedFromExpression,
  documentIdsExpression,
  type FilterExpression,
  metadataKeyPath,
  milvusNumberLiteral,
  milvusStringLiteral,
  pruneExpression,
} from "./filter-expression.js";

/**
 * A lexer for the parts of Milvus's expression grammar (`Plan.g4`) that matter here: it splits an
 * expression into string literals (decoded as Milvus and milvus-lite decode them) and the rest,
 * with each literal replaced by `?`. If a value could break out of its literal, the skeleton
 * would change or decoding would fail.
 */
function lex(expression: string): { skeleton: string; literals: string[] } {
  const literals: string[] = [];
  let skeleton = "";
  let index = 0;
  while (index < expression.length) {
    const character = expression[index] as string;
    if (character !== '"' && character !== "'") {
      skeleton += character;
      index++;
      continue;
    }
    const quote = character;
    let value = "";
    index++;
    for (;;) {
      if (index >= expression.length) throw new Error(`unterminated literal in ${expression}`);
      const next = expression[index] as string;
      if (next === quote) {
        index++;
        break;
      }
      if (next === "\r" || next === "\n") throw new Error("raw line break inside a literal");
      if (next === "\\") {
        const escaped = expression[index + 1];
        const decoded = ({ '"': '"', "'": "'", "\\": "\\", n: "\n", r: "\r", t: "\t" } as Record<string, string>)[escaped ?? ""];
        if (decoded === undefined) throw new Error(`unknown escape \\${escaped}`);
        value += decoded;
        index += 2;
        continue;
      }
      value += next;
      index++;
    }
    literals.push(value);
    skeleton += "?";
  }
  return { skeleton, literals };
}

const hostileValues = [
  'a"b@example.org',
  "o'hara@example.org",
  "back\\slash@example.org",
  "x]y@example.org",
  "p||q",
  'x" or 1==1 or "',
  "' or '1'='1",
  "close) or (true",
  "trailing backslash \\",
  '\\" or true or \\"',
  "line\nbreak\r\nand\ttab",
  "{p0} and {p1}",
  "東京 «» 😀",
  "lone \uD800 surrogate",
  "",
];

const reader: Principal = { userName: "reader@example.org", roles: ["staff"], groups: ["readers"] };

function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

describe("milvusStringLiteral", () => {
  it("round-trips hostile strings through Milvus's literal grammar", () => {
    for (const value of hostileValues) {
      const { skeleton, literals } = lex(milvusStringLiteral(value));
      expect(skeleton).toBe("?");
      expect(literals).toEqual([value.replace("\uD800", "\uFFFD")]);
    }
  });

  it("escapes exactly backslash, double quote, line feed and carriage return", () => {
    expect(milvusStringLiteral("a\"b\\c\nd\re\tf'g")).toBe('"a\\"b\\\\c\\nd\\re\tf\'g"');
  });

  it("round-trips 2,000 random strings over an adversarial alphabet", () => {
    const alphabet = [
      '"',
      "'",
      "\\",
      "[",
      "]",
      "(",
      ")",
      "{",
      "}",
      "|",
      "&",
      "=",
      "!",
      " ",
      "\n",
      "\r",
      "\t",
      "o",
      "r",
      "a",
      "n",
      "d",
      "1",
      "é",
      "東",
      "😀",
    ];
    const random = seededRandom(42);
    for (let run = 0; run < 2_000; run++) {
      const length = Math.floor(random() * 20);
      let value = "";
      for (let index = 0; index < length; index++) value += alphabet[Math.floor(random() * alphabet.length)];
      const { skeleton, literals } = lex(`doc_id == ${milvusStringLiteral(value)} and x`);
      expect(skeleton).toBe("doc_id == ? and x");
      expect(literals).toEqual([value]);
    }
  });
});

describe("milvusNumberLiteral", () => {
  it("writes integers and fractions in forms Milvus parses", () => {
    expect(milvusNumberLiteral(7)).toBe("7");
    expect(milvusNumberLiteral(-5)).toBe("-5");
    expect(milvusNumberLiteral(2.5)).toBe("2.5");
    expect(milvusNumberLiteral(1.5e-7)).toBe("1.5e-7");
  });

  it("refuses numbers neither mode can carry exactly", () => {
    for (const value of [Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60]) {
      expect(() => milvusNumberLiteral(value)).toThrowError(expect.objectContaining({ code: "invalid_request" }));
    }
  });
});

describe("metadataKeyPath", () => {
  it("accepts ordinary keys", () => {
    expect(metadataKeyPath("created_at")).toBe('metadata["created_at"]');
    expect(metadataKeyPath("doc-type.v2:x@y")).toBe('metadata["doc-type.v2:x@y"]');
  });

  it("refuses keys with quotes, brackets, backslashes, NUL, spaces, operators or non-ASCII letters", () => {
    for (const key of [
      'a"b',
      "a]b",
      "a[b",
      "a\\b",
      "a\u0000b",
      "a b",
      'x"] == 1 or metadata["y',
      "x') or (1",
      "",
      "a||b",
      "a'b",
      "größe",
      "k".repeat(129),
    ]) {
      let caught: unknown;
      try {
        metadataKeyPath(key);
      } catch (error) {
        caught = error;
      }
      expect(DocqaError.isInstance(caught) && caught.code).toBe("invalid_request");
    }
  });
});

describe("chunkFilterExpression in template mode", () => {
  it("keeps every user value out of the expression text", () => {
    for (const value of hostileValues) {
      const principal: Principal = { userName: value, roles: [value], groups: [value] };
      const expression = chunkFilterExpression(
        { principal, docIds: [value], metadata: [{ key: "type", op: "eq", value }] },
        "template",
      ) as FilterExpression;
      const expectedUser = value.trim().toLowerCase();
      const expected = [
        "(doc_id in {p0})",
        "(array_contains_any(grants, {p1}))",
        ...(expectedUser === "" ? [] : ["(not (array_contains(denied, {p2})))"]),
        `(metadata["type"] == {p${expectedUser === "" ? 2 : 3}})`,
      ].join(" and ");
      expect(expression.expression).toBe(expected);
      expect(expression.values.p0).toEqual([value]);
      expect(expression.values.p1).toEqual(expect.arrayContaining(["all"]));
      if (expectedUser !== "") expect(expression.values.p2).toBe(expectedUser);
    }
  });

  it("builds the ACL pre-filter from the principal's tokens", () => {
    const expression = chunkFilterExpression({ principal: reader }, "template") as FilterExpression;
    expect(expression).toEqual({
      expression: "(array_contains_any(grants, {p0})) and (not (array_contains(denied, {p1})))",
      values: { p0: ["all", "user:reader@example.org", "role:staff", "group:readers"], p1: "reader@example.org" },
    });
  });

  it("skips the deny check for a principal without a user name", () => {
    expect(chunkFilterExpression({ principal: { userName: " ", roles: ["r"], groups: [] } }, "template")).toEqual({
      expression: "array_contains_any(grants, {p0})",
      values: { p0: ["all", "role:r"] },
    });
  });

  it("writes metadata conditions with typed values, and `in` as equalities joined by or", () => {
    const expression = chunkFilterExpression(
      {
        metadata: [
          { key: "type", op: "in", values: ["pdf", "md", "pdf", 3, true] },
          { key: "pages", op: "gte", value: 5 },
          { key: "created_at", op: "lte", value: "2024-04-30T23:59:59Z" },
        ],
      },
      "template",
      { withEmbedding: true },
    ) as FilterExpression;
    expect(expression.expression).toBe(
      '(has_embedding == true) and (metadata["type"] == {p0} or metadata["type"] == {p1} or metadata["type"] == {p2} or metadata["type"] == {p3}) and (metadata["pages"] >= {p4}) and (metadata["created_at"] <= {p5})',
    );
    expect(expression.values).toEqual({ p0: "pdf", p1: "md", p2: 3, p3: true, p4: 5, p5: "2024-04-30T23:59:59Z" });
  });

  it("returns undefined when nothing can match, and an empty expression without filters", () => {
    expect(chunkFilterExpression({ docIds: [] }, "template")).toBeUndefined();
    expect(chunkFilterExpression({ metadata: [{ key: "type", op: "in", values: [] }] }, "literal")).toBeUndefined();
    expect(chunkFilterExpression({}, "template")).toEqual({ expression: "", values: {} });
  });

  it("refuses an unsafe metadata key instead of splicing it", () => {
    expect(() => chunkFilterExpression({ metadata: [{ key: 'x"] or true or ["', op: "eq", value: 1 }] }, "template")).toThrowError(
      expect.objectContaining({ code: "invalid_request" }),
    );
  });
});

describe("chunkFilterExpression in literal mode", () => {
  it("cannot be changed by quotes, brackets, operators or backslashes in any user value", () => {
    for (const value of hostileValues) {
      const principal: Principal = { userName: value, roles: [value, `${value}]`], groups: [`${value})`] };
      const expression = chunkFilterExpression(
        {
          principal,
          docIds: [value, "plain"],
          metadata: [
            { key: "type", op: "eq", value },
            { key: "tags", op: "in", values: [value, "x"] },
            { key: "created_at", op: "gte", value },
          ],
        },
        "literal",
      ) as FilterExpression;
      expect(expression.values).toEqual({});
      const user = value.trim().toLowerCase();
      const { skeleton, literals } = lex(expression.expression);
      const grantList = principalAccessTokens(principal);
      expect(skeleton).toBe(
        [
          "(doc_id in [?, ?])",
          `(array_contains_any(grants, [${grantList.map(() => "?").join(", ")}]))`,
          ...(user ? ["(not (array_contains(denied, ?)))"] : []),
          "(metadata[?] == ?)",
          "(metadata[?] == ? or metadata[?] == ?)",
          "(metadata[?] >= ?)",
        ].join(" and "),
      );
      const clean = (text: string) => text.replace("\uD800", "\uFFFD");
      expect(literals).toEqual(
        [value, "plain", ...grantList, ...(user ? [user] : []), "type", value, "tags", value, "tags", "x", "created_at", value].map(clean),
      );
    }
  });

  it("writes numbers and booleans as literals", () => {
    const expression = chunkFilterExpression(
      {
        metadata: [
          { key: "pages", op: "gte", value: -5 },
          { key: "ratio", op: "lte", value: 0.25 },
          { key: "draft", op: "eq", value: false },
        ],
      },
      "literal",
    ) as FilterExpression;
    expect(expression.expression).toBe('(metadata["pages"] >= -5) and (metadata["ratio"] <= 0.25) and (metadata["draft"] == false)');
  });
});

describe("registry and prune expressions", () => {
  it("builds document id and derived-from look-ups", () => {
    expect(documentIdsExpression(["a", "b", "a"], "template")).toEqual({ expression: "doc_id in {p0}", values: { p0: ["a", "b"] } });
    expect(documentIdsExpression(['a"', "b"], "literal").expression).toBe('doc_id in ["a\\"", "b"]');
    expect(derivedFromExpression(["s1"], "template")).toEqual({
      expression: "array_contains_any(derived_from, {p0})",
      values: { p0: ["s1"] },
    });
  });

  it("deletes other versions of kept documents and every chunk of removed ones", () => {
    expect(
      pruneExpression(
        [
          ["doc", "v2"],
          ["gone", null],
          ["other", "h'1"],
        ],
        "template",
      ),
    ).toEqual({
      expression: "doc_id in {p0} or (doc_id == {p1} and content_hash != {p2}) or (doc_id == {p3} and content_hash != {p4})",
      values: { p0: ["gone"], p1: "doc", p2: "v2", p3: "other", p4: "h'1" },
    });
    const { skeleton, literals } = lex(pruneExpression([['x" or doc_id != "', 'y") or ("']], "literal").expression);
    expect(skeleton).toBe("(doc_id == ? and content_hash != ?)");
    expect(literals).toEqual(['x" or doc_id != "', 'y") or ("']);
  });

  it("pages after a primary key without clashing with the base's parameters", () => {
    const base = derivedFromExpression(["s"], "template");
    expect(afterPrimaryKey(base, "doc_id", "k", "template")).toEqual({
      expression: "(array_contains_any(derived_from, {p0})) and doc_id > {after0}",
      values: { p0: ["s"], after0: "k" },
    });
    expect(afterPrimaryKey(derivedFromExpression(["s"], "literal"), "doc_id", 'k"', "literal")).toEqual({
      expression: '(array_contains_any(derived_from, ["s"])) and doc_id > "k\\""',
      values: {},
    });
  });
});
