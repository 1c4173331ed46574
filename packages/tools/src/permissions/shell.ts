// Splits a bash command line into the simple commands rules are matched against. This is not a
// full bash parser: it knows quotes, escapes, comments, the list and pipe operators, redirections,
// and command/process substitution, which is what deciding "is every part allowed?" needs.

export interface ShellAnalysis {
  /** Simple commands, split at `;` `&&` `||` `|` `&` and newlines, whitespace collapsed. */
  commands: string[];
  /** Commands found inside `$(…)`, backticks, `<(…)`/`>(…)` and `bash -c '…'`/`eval`: checked by deny rules. */
  nested: string[];
  /** Has command or process substitution: an allow rule cannot vouch for what it runs. */
  substitution: boolean;
  /** Redirects output into a file (anything but /dev/null or another descriptor). */
  writesFiles: boolean;
}

const WRAPPERS = new Set(["sudo", "env", "nohup", "time", "command", "exec", "nice", "builtin"]);

export function analyzeCommand(command: string, depth = 0): ShellAnalysis {
  const out: ShellAnalysis = { commands: [], nested: [], substitution: false, writesFiles: false };
  let current = "";
  const flush = () => {
    const part = normalize(current);
    if (part !== "") out.commands.push(part);
    current = "";
  };
  const addNested = (inner: string) => {
    out.substitution = true;
    if (depth > 4) return;
    const sub = analyzeCommand(inner, depth + 1);
    out.nested.push(...sub.commands, ...sub.nested);
    if (sub.writesFiles) out.writesFiles = true;
  };

  const s = command;
  let i = 0;
  while (i < s.length) {
    const c = s[i]!;
    const next = s[i + 1];
    if (c === "\\") {
      current += s.slice(i, i + 2);
      i += 2;
    } else if (c === "'") {
      const end = s.indexOf("'", i + 1);
      const stop = end === -1 ? s.length : end + 1;
      current += s.slice(i, stop);
      i = stop;
    } else if (c === '"') {
      const stop = scanDoubleQuoted(s, i + 1, addNested);
      current += s.slice(i, stop);
      i = stop;
    } else if (c === "`") {
      const end = closingBacktick(s, i + 1);
      addNested(s.slice(i + 1, end));
      current += s.slice(i, end + 1);
      i = end + 1;
    } else if ((c === "$" || c === "<" || c === ">") && next === "(") {
      const end = closingParen(s, i + 2);
      addNested(s.slice(i + 2, end).replace(/^\(|\)$/g, ""));
      current += s.slice(i, end + 1);
      i = end + 1;
    } else if (c === "#" && (current === "" || /\s$/.test(current))) {
      const end = s.indexOf("\n", i);
      i = end === -1 ? s.length : end;
    } else if (c === ";" || c === "\n") {
      flush();
      i++;
    } else if (c === "&" && next === "&") {
      flush();
      i += 2;
    } else if (c === "|" && next === "|") {
      flush();
      i += 2;
    } else if (c === "|") {
      flush();
      i += next === "&" ? 2 : 1;
    } else if (c === ">" || (c === "&" && next === ">")) {
      const end = redirection(s, i, out);
      current += s.slice(i, end);
      i = end;
    } else if (c === "&") {
      flush();
      i++;
    } else {
      current += c;
      i++;
    }
  }
  flush();
  // `bash -c '…'` and `eval '…'` run their argument: deny rules look inside.
  if (depth <= 4) {
    for (const part of out.commands) {
      const inner = innerScript(effectiveCommand(part));
      if (inner !== undefined) addNested(inner);
    }
  }
  return out;
}

/** The command with leading `VAR=value` assignments and wrappers (sudo, env, nohup, …) removed. */
export function effectiveCommand(part: string): string {
  const words = part.split(" ");
  let k = 0;
  while (k < words.length) {
    const word = words[k]!;
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) k++;
    else if (WRAPPERS.has(word)) {
      k++;
      while (k < words.length && words[k]!.startsWith("-")) k++;
    } else break;
  }
  return words.slice(k).join(" ");
}

function innerScript(command: string): string | undefined {
  const match = /^(?:(?:ba|z|da|k)?sh\s+(?:-\w+\s+)*-\w*c\s+|eval\s+)([\s\S]+)$/.exec(command);
  if (!match) return undefined;
  const arg = match[1]!.trim();
  const quote = arg[0];
  if ((quote === "'" || quote === '"') && arg.endsWith(quote) && arg.length >= 2) return arg.slice(1, -1);
  return arg;
}

function normalize(part: string): string {
  return part
    .trim()
    .replace(/^[({!\s]+/, "")
    .replace(/[)}\s]+$/, "")
    .replace(/\s+/g, " ");
}

/** Index just after the closing quote; reports substitutions inside the string. */
function scanDoubleQuoted(s: string, from: number, onNested: (inner: string) => void): number {
  let i = from;
  while (i < s.length) {
    const c = s[i]!;
    if (c === "\\") i += 2;
    else if (c === '"') return i + 1;
    else if (c === "`") {
      const end = closingBacktick(s, i + 1);
      onNested(s.slice(i + 1, end));
      i = end + 1;
    } else if (c === "$" && s[i + 1] === "(") {
      const end = closingParen(s, i + 2);
      onNested(s.slice(i + 2, end).replace(/^\(|\)$/g, ""));
      i = end + 1;
    } else i++;
  }
  return s.length;
}

function closingBacktick(s: string, from: number): number {
  for (let i = from; i < s.length; i++) {
    if (s[i] === "\\") i++;
    else if (s[i] === "`") return i;
  }
  return s.length;
}

/** Index of the `)` closing a `(` opened just before `from` (s.length when unterminated). */
function closingParen(s: string, from: number): number {
  let depth = 1;
  for (let i = from; i < s.length; i++) {
    const c = s[i]!;
    if (c === "\\") i++;
    else if (c === "'") {
      const end = s.indexOf("'", i + 1);
      i = end === -1 ? s.length : end;
    } else if (c === '"') i = scanDoubleQuoted(s, i + 1, () => {}) - 1;
    else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return i;
  }
  return s.length;
}

/** Consumes a redirection starting at `i` (`>`, `>>`, `>|`, `&>`, `>&2`, …); flags file targets. */
function redirection(s: string, i: number, out: ShellAnalysis): number {
  let j = i;
  if (s[j] === "&") j++;
  j++; // the ">"
  if (s[j] === ">" || s[j] === "|") j++;
  if (s[j] === "&") {
    j++;
    while (j < s.length && /[0-9-]/.test(s[j]!)) j++;
    return j;
  }
  while (j < s.length && (s[j] === " " || s[j] === "\t")) j++;
  const start = j;
  while (j < s.length && !/[\s;&|<>()]/.test(s[j]!)) j++;
  if (s.slice(start, j) !== "/dev/null") out.writesFiles = true;
  return j;
}
