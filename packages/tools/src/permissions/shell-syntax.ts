// The bash grammar behind the permission rules: mvdan/sh's parser (the one shfmt uses), through the
// `mvdan-sh` npm package, plus what rules need on top of its syntax tree: the static value of a
// word, when it has one. A word whose value depends on the run (`$x`, `$(…)`, globs, `~`) has none.

import { createRequire } from "node:module";

/** A node of mvdan/sh's syntax tree as the gopherjs build exposes it (fields read by name). */
// biome-ignore lint/suspicious/noExplicitAny: the tree comes untyped from a transpiled Go package
export type ShNode = any;

interface MvdanSyntax {
  NewParser(): { Parse(src: string, name: string): ShNode };
  NodeType(node: ShNode): string;
  Walk(node: ShNode, visit: (node: ShNode) => boolean): void;
}

let syntax: MvdanSyntax | undefined;

/** Loaded on first use: the package takes a few hundred milliseconds to load, and many runs never parse. */
function mvdan(): MvdanSyntax {
  if (!syntax) syntax = (createRequire(import.meta.url)("mvdan-sh") as { syntax: MvdanSyntax }).syntax;
  return syntax;
}

export type Parsed = { ok: true; file: ShNode } | { ok: false; error: string };

/** Parses a bash script; a syntax error is data (the caller asks rather than guesses). */
export function parseScript(src: string): Parsed {
  try {
    return { ok: true, file: mvdan().NewParser().Parse(src, "command") };
  } catch (error) {
    const e = error as { Error?: () => string; message?: string };
    const text = typeof e?.Error === "function" ? e.Error() : (e?.message ?? String(error));
    return { ok: false, error: text.replace(/^command:/, "") };
  }
}

export function nodeType(node: ShNode): string {
  return mvdan().NodeType(node);
}

/** Visits every node under `node`, substitutions inside words and heredocs included. */
export function walk(node: ShNode, visit: (node: ShNode) => boolean): void {
  mvdan().Walk(node, (n: ShNode) => (n ? visit(n) : true));
}

/** The source text of a node (positions are UTF-8 byte offsets). */
export function sourceOf(src: Buffer, node: ShNode): string {
  return src.subarray(node.Pos().Offset(), node.End().Offset()).toString("utf8");
}

/** A word of a command: its static value, or undefined when only the run can tell. */
export type StaticWord = string | undefined;

/** Unquoted characters that make bash expand a word into file names or a home directory. */
const EXPANDING = /[*?[]|^~|\{[^}]*(,|\.\.)[^}]*\}/;

/**
 * The value bash gives a word after quote removal, when it needs nothing from the run. Escapes are
 * decoded (`r\m`, `\rm`, `'rm'`, `"rm"` and `$'\x72m'` are all "rm").
 */
export function staticWord(word: ShNode): StaticWord {
  let out = "";
  for (const part of word.Parts) {
    const type = nodeType(part);
    if (type === "Lit") {
      const raw: string = part.Value;
      if (EXPANDING.test(raw.replace(/\\./gs, "_"))) return undefined;
      out += raw.replace(/\\\n/g, "").replace(/\\(.)/gs, "$1");
    } else if (type === "SglQuoted") {
      if (!part.Dollar) out += part.Value;
      else {
        const decoded = decodeAnsiC(part.Value);
        if (decoded === undefined) return undefined;
        out += decoded;
      }
    } else if (type === "DblQuoted") {
      // $"…" is translated through a message catalog: its value is not in the source.
      if (part.Dollar) return undefined;
      for (const inner of part.Parts) {
        if (nodeType(inner) !== "Lit") return undefined;
        out += (inner.Value as string).replace(/\\\n/g, "").replace(/\\([$`"\\])/g, "$1");
      }
    } else return undefined;
  }
  return out;
}

const SIMPLE_ESCAPES: Record<string, string> = {
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?",
};

/** Decodes the body of `$'…'`; undefined for an escape it does not know (the word is then unknown). */
export function decodeAnsiC(body: string): string | undefined {
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== "\\") {
      out += c;
      continue;
    }
    const e = body[i + 1];
    if (e === undefined) return undefined;
    if (e in SIMPLE_ESCAPES) {
      out += SIMPLE_ESCAPES[e];
      i++;
      continue;
    }
    const numeric =
      /^[0-7]{1,3}/.exec(body.slice(i + 1)) ??
      (e === "x" ? /^x([0-9a-fA-F]{1,2})/.exec(body.slice(i + 1)) : null) ??
      (e === "u" ? /^u([0-9a-fA-F]{1,4})/.exec(body.slice(i + 1)) : null) ??
      (e === "U" ? /^U([0-9a-fA-F]{1,8})/.exec(body.slice(i + 1)) : null);
    if (!numeric) return undefined;
    const digits = numeric[1] ?? numeric[0];
    const code = Number.parseInt(digits, numeric[1] === undefined ? 8 : 16);
    if (code === 0) return out; // bash stops the string at a NUL
    if (code > 0x10ffff) return undefined;
    out += String.fromCodePoint(code);
    i += numeric[0].length;
  }
  return out;
}
