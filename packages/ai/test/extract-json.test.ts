import { describe, expect, it } from "vitest";
import { extractJson, extractJsonCandidates } from "../src/extract-json.js";

const found: [string, string, unknown][] = [
  // plain
  ["plain object", '{"a": 1, "b": "two"}', { a: 1, b: "two" }],
  ["plain array", "[1, 2, 3]", [1, 2, 3]],
  ["plain with surrounding whitespace", '\n  {"a": true}  \n', { a: true }],
  ["plain scalar", "42", 42],
  ["plain null", "null", null],
  // text around
  ["text before and after", 'Here you go: {"name": "Ada"} — hope it helps!', { name: "Ada" }],
  ["nested objects", 'x {"a": {"b": {"c": [1, {"d": 2}]}}} y', { a: { b: { c: [1, { d: 2 }] } } }],
  ["array in text", "The ids are [3, 5, 8].", [3, 5, 8]],
  [
    "braces inside strings",
    'ok {"a": "}{", "b": "[not] {an} array"} end',
    { a: "}{", b: "[not] {an} array" },
  ],
  ["escaped quotes inside strings", 'r: {"q": "she said \\"}\\" loudly"} done', { q: 'she said "}" loudly' }],
  ["escaped backslash before quote", '{"p": "C:\\\\"} tail }', { p: "C:\\" }],
  ["prose brackets before the JSON", 'See [note 1] and {curly} then {"k": null}.', { k: null }],
  ["apostrophe in prose before", 'Here\'s the result: {"ok": true}', { ok: true }],
  // fences
  ["json fence", 'Result:\n```json\n{"a": 1}\n```\nBye', { a: 1 }],
  ["bare fence", "```\n[1, 2]\n```", [1, 2]],
  ["fence wins over earlier bracket text", 'Use [x] here:\n```json\n{"a": 2}\n```', { a: 2 }],
  ["fence with prose inside", '```json\nHere: {"a": 3}\n```', { a: 3 }],
  ["unclosed fence at the end", '```json\n{"a": 4}\n', { a: 4 }],
  [
    "non-json fence not preferred, brackets taken in order",
    '```python\nx = {"no": 1}\n```\n{"yes": 2}',
    { no: 1 },
  ],
  ["inline fence without newline", '```{"a": 5}```', { a: 5 }],
  // repairs
  ["trailing comma in object", '{"a": 1, "b": 2,}', { a: 1, b: 2 }],
  ["trailing comma in array", "[1, 2, 3, ]", [1, 2, 3]],
  ["nested trailing commas", '{"a": [1, {"b": 2,},],}', { a: [1, { b: 2 }] }],
  ["single quotes", "{'a': 'b', 'c': ['d']}", { a: "b", c: ["d"] }],
  ["escaped single quote", "{'a': 'it\\'s'}", { a: "it's" }],
  ["double quote inside single quotes", "{'a': 'say \"hi\"'}", { a: 'say "hi"' }],
  ["smart quotes", "{“name”: “Ada”, “n”: 1}", { name: "Ada", n: 1 }],
  ["unquoted keys", '{name: "Ada", age_years: 36, $id: 1}', { name: "Ada", age_years: 36, $id: 1 }],
  ["python literals", "{'ok': True, 'bad': False, 'none': None}", { ok: true, bad: false, none: null }],
  ["line comment", '{\n  "a": 1, // the answer\n  "b": 2\n}', { a: 1, b: 2 }],
  ["block comment", '{"a": /* note } */ 1}', { a: 1 }],
  ["raw newline and tab in a string", '{"s": "line one\nline\ttwo"}', { s: "line one\nline\ttwo" }],
  ["invalid escape kept literal", '{"re": "\\d+\\s"}', { re: "\\d+\\s" }],
  ["unicode escape kept", '{"u": "\\u00e9"}', { u: "é" }],
  ["missing closing brace at the end", '{"a": 1, "b": {"c": 2}', { a: 1, b: { c: 2 } }],
  ["cut off inside a string", 'Answer: {"a": [1, 2], "s": "unfinish', { a: [1, 2], s: "unfinish" }],
  ["exponent numbers untouched", '{"n": 1e5, "m": -2.5E-3}', { n: 1e5, m: -2.5e-3 }],
];

const notFound: [string, string][] = [
  ["empty", ""],
  ["whitespace", "   \n "],
  ["prose only", "I cannot answer that."],
  ["lone open brace at end", "Here it comes {"],
  ["empty container closed by repair", "list: ["],
  ["prose braces", "use {name} and {value} here"],
  ["missing comma", "[1 2]"],
  ["mismatched brackets", '{"a": [1, 2}'],
  ["NaN", '{"a": NaN}'],
  ["unquoted value", "{a: b}"],
  ["truncated key", '{"a": 1, "b'],
];

describe("extractJson", () => {
  it.each(found)("finds %s", (_label, text, expected) => {
    expect(extractJson(text)).toEqual(expected);
  });

  it.each(notFound)("returns undefined for %s", (_label, text) => {
    expect(extractJson(text)).toBeUndefined();
  });

  it("lists later candidates after the first, without re-listing parts of a hit", () => {
    const text = 'First [1, 2], then {"a": {"b": 1}} and ```json\n{"c": 3}\n```';
    expect([...extractJsonCandidates(text)]).toEqual([{ c: 3 }, [1, 2], { a: { b: 1 } }, { c: 3 }]);
  });

  it("gives up on many unbalanced brackets instead of scanning each one to the end", () => {
    // The value at the very end is past the scan budget: not finding it shows the scan gave up.
    // How long this takes is measured by `npm run bench extract-json`.
    const text = `${"{[".repeat(40_000)}{"a": 1}`;
    expect(extractJson(text)).toBeUndefined();
  });
});
