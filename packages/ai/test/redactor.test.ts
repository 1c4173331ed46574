// The redactor: every spelling of a secret, wherever it starts and however a stream is cut.
import { describe, expect, it } from "vitest";
import { MIN_SECRET_LENGTH, REDACTED, Redactor, spellingsOf } from "../src/redactor.js";
import { keyLeaks } from "./support/key-leaks.js";

const KEY = "sk-test-Zq81mXv07Lp/9+Yw=k3y"; // has characters that base64url, JSON and URLs spell apart
const base64 = (text: string) => Buffer.from(text).toString("base64");
const base64url = (text: string) => Buffer.from(text).toString("base64url");

/** Every string an output may hold the key as, named for the failure message. */
const SPELLED: [string, string][] = [
  ["raw", `error: ${KEY}.`],
  ["JSON-escaped", JSON.stringify({ message: `a "quoted" ${KEY}\\n` })],
  ["percent-encoded", `https://x/?key=${encodeURIComponent(KEY)}&b=1`],
  [
    "percent-encoded, lower-case hex",
    `?key=${encodeURIComponent(KEY).replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase())}`,
  ],
  ["base64", base64(KEY)],
  ["base64url", base64url(KEY)],
  ...[1, 2, 3, 4, 5].map((n): [string, string] => [
    `base64 after ${n} bytes`,
    base64(`${"x".repeat(n)}${KEY}`),
  ]),
  ...[1, 2, 3].map((n): [string, string] => [
    `base64url after ${n} bytes`,
    base64url(`${"?".repeat(n)}${KEY}!!`),
  ]),
  ["base64 of a Basic credential", `Authorization: Basic ${base64(`user:${KEY}`)}`],
];

/** Where a text still holds KEY. */
const leaks = (text: string) => keyLeaks(text, KEY);

describe("Redactor.text", () => {
  const redactor = new Redactor([KEY]);
  it.each(SPELLED)("removes the %s key", (_name, text) => {
    expect(leaks(text).length).toBeGreaterThan(0); // the case really holds the key
    const out = redactor.text(text);
    expect(leaks(out)).toEqual([]);
    expect(out).toContain(REDACTED);
  });

  it("keeps the text around a secret and JSON valid", () => {
    const line = JSON.stringify({ message: `a "quoted" ${KEY} end` });
    expect(JSON.parse(redactor.text(line))).toEqual({ message: `a "quoted" ${REDACTED} end` });
  });

  it("replaces overlapping secrets by one marker, however they overlap", () => {
    const both = new Redactor(["abcdefgh12", "gh12345678", "345678"]);
    expect(both.text("<abcdefgh12345678>")).toBe(`<${REDACTED}>`);
  });

  it(`ignores values shorter than ${MIN_SECRET_LENGTH} characters and empty ones`, () => {
    const short = new Redactor(["abc", "1234567", "", undefined]);
    expect(short.longest).toBe(0);
    expect(short.text("abc 1234567 YWJj")).toBe("abc 1234567 YWJj");
  });

  it("learns secrets added later and takes another marker", () => {
    const late = new Redactor([], { marker: "***" });
    expect(late.text(KEY)).toBe(KEY);
    late.add([KEY]);
    expect(late.text(`x${KEY}x`)).toBe("x***x");
  });

  it("redacts a value with toJSON as JSON.stringify writes it", () => {
    const at = new Date(0);
    expect(JSON.stringify(redactor.json({ at, key: KEY }))).toBe(JSON.stringify({ at, key: REDACTED }));
  });

  it("redacts every string of a JSON value, keys included", () => {
    const value = { [KEY]: [KEY, 1, null, { deep: `?k=${encodeURIComponent(KEY)}` }], plain: "ok" };
    expect(redactor.json(value)).toEqual({
      [REDACTED]: [REDACTED, 1, null, { deep: `?k=${REDACTED}` }],
      plain: "ok",
    });
  });
});

describe("Redactor.stream", () => {
  /** `text` pushed in the given pieces, then ended. */
  function streamed(redactor: Redactor, pieces: string[]): { out: string; writes: string[] } {
    const stream = redactor.stream();
    const writes = pieces.map((piece) => stream.push(piece));
    writes.push(stream.end());
    return { out: writes.join(""), writes };
  }

  it.each(SPELLED)("removes the %s key cut at every place", (_name, text) => {
    const redactor = new Redactor([KEY]);
    for (let cut = 1; cut < text.length; cut++) {
      const { out } = streamed(redactor, [text.slice(0, cut), text.slice(cut)]);
      expect(leaks(out), `cut at ${cut}`).toEqual([]);
      expect(out).toBe(redactor.text(text));
    }
  });

  it("removes a key sent one character at a time", () => {
    const redactor = new Redactor([KEY]);
    const text = `the key is ${KEY}, done`;
    expect(streamed(redactor, [...text]).out).toBe(`the key is ${REDACTED}, done`);
  });

  it("holds back only a tail that could start a secret, never as much as the longest spelling", () => {
    const redactor = new Redactor([KEY]);
    const stream = redactor.stream();
    expect(stream.push("nothing to hide\n")).toBe("nothing to hide\n");
    expect(stream.push(`next: ${KEY.slice(0, -1)}`)).toBe("next: ");
    expect(stream.push("!")).toBe(`${KEY.slice(0, -1)}!`);
    const pushed = `${KEY.slice(0, -1)}`.repeat(3);
    expect(pushed.length - stream.push(pushed).length).toBeLessThan(redactor.longest);
    expect(stream.end()).toBe(KEY.slice(0, -1));
  });

  it("passes text through unchanged when there are no secrets", () => {
    const stream = new Redactor().stream();
    expect(stream.push("sk-")).toBe("sk-");
    expect(stream.end()).toBe("");
  });
});

describe("spellingsOf", () => {
  it("skips base64 spellings too short to be told from ordinary text", () => {
    expect(spellingsOf("abc")).toEqual(["abc"]);
    // base64 of "abcdefgh" after 0, 1 and 2 other bytes, cut to what only it decides.
    expect(spellingsOf("abcdefgh")).toEqual(["abcdefgh", "YWJjZGVmZ2", "FiY2RlZmdo", "hYmNkZWZna"]);
  });
});
