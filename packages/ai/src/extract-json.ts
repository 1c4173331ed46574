// Finds JSON in a model's free text. Models wrap JSON in prose and fences, and write it slightly
// wrong; this accepts what a reader would, and nothing that needs guessing.
//
// Where it looks, in order: the whole text as JSON; ```json / ```js / bare ``` fenced blocks (an
// unclosed fence at the end counts, for truncated answers); then each `{` or `[` in the text,
// scanning to its balanced close while skipping brackets inside strings.
//
// Repairs (applied only when plain JSON.parse fails):
// - trailing commas (`[1, 2,]`, `{"a": 1,}`) and doubled commas
// - `//` and `/* */` comments outside strings
// - single-quoted and smart-quoted (“ ” ‘ ’) strings
// - unquoted keys (`{name: "x"}`) and Python's True / False / None
// - raw control characters (newlines, tabs) inside strings, `\'` and invalid escapes like `\d`
// - a value cut off at the end of the text: the open string and brackets are closed
//   (a result that would be an empty `{}` or `[]` is rejected)
// Not repaired: missing commas, mismatched brackets, NaN/Infinity, hex numbers.

const MAX_STARTS = 64;
const FENCE = /```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n([\s\S]*?)(?:```|$)/g;
const JSON_FENCE_LABEL = /^(|json\w*|js|javascript)$/i;

/** The first JSON value found in `text`, or undefined when there is none. */
export function extractJson(text: string): unknown {
  for (const value of extractJsonCandidates(text)) return value;
  return undefined;
}

/**
 * Every JSON value found in `text`, best first (whole text, fenced blocks, balanced brackets).
 * Callers with a schema take the first that validates. May repeat a value.
 */
export function* extractJsonCandidates(text: string): Generator<unknown> {
  const whole = parseStrict(text.trim());
  if (whole !== NONE) {
    yield whole;
    return;
  }
  for (const match of text.matchAll(FENCE)) {
    if (!JSON_FENCE_LABEL.test(match[1] ?? "")) continue;
    const body = match[2] ?? "";
    const fenced = parseStrict(body.trim());
    if (fenced !== NONE) yield fenced;
    else yield* bracketed(body);
  }
  yield* bracketed(text);
}

/** Values starting at each `{` / `[`; after a hit, resumes past it so its parts are not re-yielded. */
function* bracketed(text: string): Generator<unknown> {
  // Failed scans can each run to the end of the text; the budget keeps pathological input linear.
  const budget = { chars: 4 * text.length + 10_000 };
  let starts = 0;
  for (let i = nextOpen(text, 0); i !== -1 && starts < MAX_STARTS && budget.chars > 0; starts++) {
    const scan = scanValue(text, i, budget);
    const value = scan ? parseStrict(scan.json) : NONE;
    if (value !== NONE && !(scan?.closedAtEnd && isEmpty(value))) {
      yield value;
      i = nextOpen(text, scan?.end ?? i + 1);
    } else {
      i = nextOpen(text, i + 1);
    }
  }
}

const NONE = Symbol("none");

function parseStrict(text: string): unknown {
  if (text === "") return NONE;
  try {
    return JSON.parse(text);
  } catch {
    return NONE;
  }
}

function nextOpen(text: string, from: number): number {
  const brace = text.indexOf("{", from);
  const bracket = text.indexOf("[", from);
  if (brace === -1) return bracket;
  if (bracket === -1) return brace;
  return Math.min(brace, bracket);
}

function isEmpty(value: unknown): boolean {
  return typeof value === "object" && value !== null && Object.keys(value).length === 0;
}

interface Scan {
  /** The value rewritten as strict JSON (whitespace between tokens collapsed). */
  json: string;
  /** Index just past the value in the source text. */
  end: number;
  /** The text ended before the value did; open strings and brackets were closed. */
  closedAtEnd: boolean;
}

// For each opening quote, the characters that close it (models mix smart and straight quotes).
const QUOTES: Record<string, string> = { '"': '"', "'": "'", "“": '”“"', "‘": "’‘'" };
const WORD = /[A-Za-z_$][\w$]*/y;
const LITERALS: Record<string, string> = { True: "true", False: "false", None: "null" };

/**
 * Reads the bracketed value at `start`, rewriting it to strict JSON. Undefined on a mismatched
 * close or when the budget runs out (it is charged the characters read).
 */
function scanValue(text: string, start: number, budget: { chars: number }): Scan | undefined {
  const closers: string[] = [];
  let out = "";
  let pendingComma = false;
  // A comma is written only when another value follows it, which drops trailing commas.
  const emit = (token: string) => {
    if (pendingComma) out += ",";
    pendingComma = false;
    out += token;
  };
  let i = start;
  const charge = () => {
    budget.chars -= i - start;
  };
  while (i < text.length) {
    if (i - start > budget.chars) {
      charge();
      return undefined;
    }
    const ch = text[i] as string;
    if (ch === "{" || ch === "[") {
      emit(ch);
      closers.push(ch === "{" ? "}" : "]");
      i++;
    } else if (ch === "}" || ch === "]") {
      pendingComma = false;
      out += ch;
      i++;
      if (closers.pop() !== ch) {
        charge();
        return undefined;
      }
      if (closers.length === 0) {
        charge();
        return { json: out, end: i, closedAtEnd: false };
      }
    } else if (ch === ",") {
      pendingComma = true;
      i++;
    } else if (ch <= " ") {
      // Keep one space so `[1 2]` stays invalid instead of becoming `[12]`.
      if (!pendingComma && !out.endsWith(" ")) out += " ";
      i++;
    } else if (ch === "/" && text[i + 1] === "/") {
      const newline = text.indexOf("\n", i);
      i = newline === -1 ? text.length : newline;
    } else if (ch === "/" && text[i + 1] === "*") {
      const close = text.indexOf("*/", i + 2);
      i = close === -1 ? text.length : close + 2;
    } else if (QUOTES[ch]) {
      const string = readString(text, i, QUOTES[ch]);
      emit(string.json);
      i = string.end;
    } else {
      WORD.lastIndex = i;
      const word = WORD.exec(text)?.[0];
      if (word) {
        emit(isKey(text, i + word.length) ? JSON.stringify(word) : (LITERALS[word] ?? word));
        i += word.length;
      } else {
        emit(ch);
        i++;
      }
    }
  }
  charge();
  return { json: out + closers.reverse().join(""), end: text.length, closedAtEnd: true };
}

function isKey(text: string, from: number): boolean {
  let i = from;
  while (i < text.length && (text[i] as string) <= " ") i++;
  return text[i] === ":";
}

const VALID_ESCAPE = /^(["\\/bfnrt]|u[0-9a-fA-F]{4})/;
const CONTROL: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f" };

/** Reads a quoted string at `start` as a JSON string literal; an unclosed one ends at the text's end. */
function readString(text: string, start: number, closers: string): { json: string; end: number } {
  let out = '"';
  let i = start + 1;
  while (i < text.length) {
    const ch = text[i] as string;
    if (ch === "\\") {
      const rest = text.slice(i + 1, i + 6);
      if (rest.startsWith("'")) out += "'";
      else if (VALID_ESCAPE.test(rest)) out += `\\${rest[0]}`;
      else out += "\\\\"; // a lone backslash (`\d` in a regex) is literal text
      i += rest.startsWith("'") || VALID_ESCAPE.test(rest) ? 2 : 1;
      continue;
    }
    if (closers.includes(ch)) return { json: `${out}"`, end: i + 1 };
    if (ch === '"') out += '\\"';
    else if (ch < " ") out += CONTROL[ch] ?? `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`;
    else out += ch;
    i++;
  }
  return { json: `${out}"`, end: text.length };
}
