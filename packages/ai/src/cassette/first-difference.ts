// The first place two JSON values differ, as a path (`body.messages[2].content`) and both sides
// shortened around the difference: what a replay mismatch shows instead of two whole requests.

/** Characters of context shown on each side of the first differing character of two strings. */
const CONTEXT_CHARS = 40;

export interface Difference {
  path: string;
  expected: string;
  actual: string;
}

export function firstDifference(expected: unknown, actual: unknown, path: string): Difference | undefined {
  if (Object.is(expected, actual)) return undefined;
  if (typeof expected === "string" && typeof actual === "string")
    return stringDifference(expected, actual, path);
  if (Array.isArray(expected) && Array.isArray(actual)) {
    const shared = Math.min(expected.length, actual.length);
    for (let i = 0; i < shared; i++) {
      const found = firstDifference(expected[i], actual[i], `${path}[${i}]`);
      if (found) return found;
    }
    if (expected.length === actual.length) return undefined;
    return {
      path: `${path}.length`,
      expected: String(expected.length),
      actual: String(actual.length),
    };
  }
  if (isObject(expected) && isObject(actual)) {
    const keys = [...new Set([...Object.keys(expected), ...Object.keys(actual)])];
    for (const key of keys) {
      const child = `${path}.${key}`;
      if (!(key in actual)) return { path: child, expected: show(expected[key]), actual: "(missing)" };
      if (!(key in expected)) return { path: child, expected: "(missing)", actual: show(actual[key]) };
      const found = firstDifference(expected[key], actual[key], child);
      if (found) return found;
    }
    return undefined;
  }
  return { path, expected: show(expected), actual: show(actual) };
}

function stringDifference(expected: string, actual: string, path: string): Difference {
  let at = 0;
  while (at < expected.length && at < actual.length && expected[at] === actual[at]) at++;
  const from = Math.max(0, at - CONTEXT_CHARS);
  const excerpt = (text: string) =>
    `${from > 0 ? "…" : ""}${JSON.stringify(text.slice(from, at + CONTEXT_CHARS)).slice(1, -1)}${at + CONTEXT_CHARS < text.length ? "…" : ""}`;
  return {
    path: `${path} (at character ${at})`,
    expected: `"${excerpt(expected)}"`,
    actual: `"${excerpt(actual)}"`,
  };
}

function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > CONTEXT_CHARS * 2 ? `${text.slice(0, CONTEXT_CHARS * 2)}…` : text;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
