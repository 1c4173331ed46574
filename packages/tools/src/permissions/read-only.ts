// Whether a bash command line cannot change anything, judged on its parsed form: every command in
// it is one of a short built-in list of programs that only read (`ls`, `cat`, `git status`…), with
// none of the options that make them write or run other programs, and the line has nothing else:
// no substitutions, subshells, bodies, variables, globs, prefix assignments or redirections into
// files. In `ask` mode such lines run without a question. This is a convenience that saves
// questions, not a boundary: the sandbox is the boundary. Failures are data: the verdict says why not.

import { analyzeCommand, type Invocation } from "./shell.js";
import { nodeType, parseScript, type ShNode, walk } from "./shell-syntax.js";

export type ReadOnlyVerdict = { readOnly: true } | { readOnly: false; why: string };

type Check = (args: readonly string[]) => string | undefined;

/** Syntax a read-only line may contain: simple commands joined by `|`, `&&`, `||`, `;`, newlines. */
const PLAIN_SYNTAX = new Set([
  "File",
  "Stmt",
  "CallExpr",
  "BinaryCmd",
  "Word",
  "Lit",
  "SglQuoted",
  "DblQuoted",
  "Redirect",
  "Comment",
  "Assign",
]);

/** Prefix assignments that change only how text is printed. */
const HARMLESS_ASSIGNMENT = /^(LC_[A-Z]+|LANG|LANGUAGE|TZ|NO_COLOR|COLUMNS)$/;

/** Judges a whole command line (once per permission check; the analysis it reads is cached). */
export function readOnlyCommand(command: string): ReadOnlyVerdict {
  const why = whyNotReadOnly(command);
  return why === undefined ? { readOnly: true } : { readOnly: false, why };
}

function whyNotReadOnly(command: string): string | undefined {
  const shell = analyzeCommand(command);
  const unknown = [...shell.unresolved, ...shell.effects, ...shell.hidden][0];
  if (unknown) return unknown;
  if (shell.invocations.length === 0) return "it runs no command";
  const parsed = parseScript(command);
  if (!parsed.ok) return `it does not parse as bash (${parsed.error})`;
  let why: string | undefined;
  walk(parsed.file, (node: ShNode) => {
    why ??= syntaxWhy(node);
    return why === undefined;
  });
  if (why) return why;
  for (const invocation of shell.invocations) {
    const found = invocationWhy(invocation);
    if (found) return found;
  }
  return undefined;
}

function syntaxWhy(node: ShNode): string | undefined {
  const type = nodeType(node);
  if (type === "Stmt" && (node.Background || node.Coprocess)) return "it starts a command in the background";
  if (type === "CallExpr")
    for (const assign of node.Assigns)
      if (!assign.Name || !HARMLESS_ASSIGNMENT.test(assign.Name.Value))
        return `it sets ${assign.Name?.Value ?? "a variable"}`;
  if (!PLAIN_SYNTAX.has(type)) return `${SYNTAX_NAMES[type] ?? type} is not judged read-only`;
  return undefined;
}

const SYNTAX_NAMES: Record<string, string> = {
  CmdSubst: "command substitution",
  ProcSubst: "process substitution",
  Subshell: "a subshell",
  Block: "a { … } block",
  ParamExp: "a variable",
  ArithmExp: "arithmetic",
  FuncDecl: "a function definition",
};

/**
 * One command of a line, judged alone: its program is on the read-only list and its words are
 * all known from the source. Prefix assignments other than locale ones make it not read-only.
 */
export function readOnlyInvocation(invocation: Invocation): ReadOnlyVerdict {
  const why = invocationWhy(invocation);
  return why === undefined ? { readOnly: true } : { readOnly: false, why };
}

function invocationWhy({ argv, assigns }: Invocation): string | undefined {
  if (argv.some((word) => word === undefined)) return "a word of it is only known when it runs";
  const [name, ...args] = argv as string[];
  for (const assign of assigns)
    if (!HARMLESS_ASSIGNMENT.test(assign.slice(0, assign.indexOf("=")))) return `it sets ${assign}`;
  const check = Object.hasOwn(READ_ONLY_PROGRAMS, name!) ? READ_ONLY_PROGRAMS[name!] : undefined;
  if (!check) return `${name} is not on the read-only list`;
  const why = check(args);
  return why === undefined ? undefined : `${name}: ${why}`;
}

// ---- the list --------------------------------------------------------------------------------

const anything: Check = () => undefined;

/** Words before `--` that are options. */
function optionWords(args: readonly string[]): string[] {
  const end = args.indexOf("--");
  return (end === -1 ? args : args.slice(0, end)).filter((word) => word.startsWith("-") && word !== "-");
}

/**
 * Refuses short options `letters` (alone or in a cluster: `-uo`, `-ofile`) and long options `long`,
 * also abbreviated, as GNU getopt accepts (`--out=f` is `--output=f`).
 */
function refusing(letters: string, long: readonly string[] = []): Check {
  return (args) => {
    for (const word of optionWords(args)) {
      if (word.startsWith("--")) {
        const name = word.slice(2).split("=")[0]!;
        if (long.some((option) => option.startsWith(name))) return `${word} writes or runs something`;
      } else if ([...word.slice(1)].some((c) => letters.includes(c)))
        return `${word} writes or runs something`;
    }
    return undefined;
  };
}

/** At most `max` operands (`uniq IN OUT` writes OUT; `hostname NAME` sets it). */
function operands(max: number, also: Check = anything): Check {
  return (args) => {
    const end = args.indexOf("--");
    const count =
      end === -1
        ? args.filter((w) => !w.startsWith("-") || w === "-").length
        : args.slice(0, end).filter((w) => !w.startsWith("-")).length + args.length - end - 1;
    return count > max ? `more than ${max} operand${max === 1 ? "" : "s"} makes it write` : also(args);
  };
}

const FIND_ACTIONS = /^-(exec|execdir|ok|okdir|delete|fprint|fprint0|fprintf|fls)$/;

function find(args: readonly string[]): string | undefined {
  const action = args.find((word) => FIND_ACTIONS.test(word));
  return action ? `${action} runs a command or changes files` : undefined;
}

function date(args: readonly string[]): string | undefined {
  const set = refusing("s", ["set"])(args);
  if (set) return set;
  return args.some((w) => !w.startsWith("-") && !w.startsWith("+")) ? "an operand sets the clock" : undefined;
}

/** git's commands that only read, and options of theirs that write files or run programs. */
const GIT_READING = new Set(["status", "diff", "log", "show", "blame", "rev-parse", "ls-files", "branch"]);
const GIT_GLOBAL_SAFE = new Set(["--no-pager", "-P", "--no-optional-locks"]);
const GIT_WRITING = refusing("", [
  "output",
  "ext-diff",
  "textconv",
  "exec",
  "upload-pack",
  "open-files-in-pager",
]);
/** `git branch` options that list (anything else creates, deletes, renames or sets upstreams). */
const BRANCH_LISTING =
  /^(-a|-r|-v|-vv|-i|-q|-l|--all|--remotes|--verbose|--list|--ignore-case|--quiet|--show-current|--no-color|--no-column|--no-abbrev|--(no-)?contains=.+|--(no-)?merged=.+|--points-at=.+|--sort=.+|--format=.+|--color(=.+)?|--column(=.+)?|--abbrev=.+)$/;

function git(args: readonly string[]): string | undefined {
  let i = 0;
  while (i < args.length && args[i]!.startsWith("-")) {
    if (!GIT_GLOBAL_SAFE.has(args[i]!)) return `its option ${args[i]} can change what git runs`;
    i++;
  }
  const command = args[i];
  if (command === undefined || !GIT_READING.has(command))
    return `git ${command ?? ""} is not one of the git commands that only read`.replace("  ", " ");
  const rest = args.slice(i + 1);
  if (command === "branch") {
    const listing = rest.some((w) => w === "--list" || w === "-l");
    for (const word of rest)
      if (word.startsWith("-") ? !BRANCH_LISTING.test(word) : !listing)
        return `git branch ${word} changes branches (only listing is read-only)`;
  }
  return GIT_WRITING(rest);
}

/** sed options that neither edit in place nor read the script from a file. */
const SED_FLAGS = /^-[nErsuz]+$/;
const SED_LONG = new Set([
  "--quiet",
  "--silent",
  "--regexp-extended",
  "--separate",
  "--null-data",
  "--unbuffered",
  "--posix",
  "--debug",
  "--sandbox",
]);

function sed(args: readonly string[]): string | undefined {
  const scripts: string[] = [];
  const files: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (word === "--") {
      files.push(...args.slice(i + 1));
      break;
    }
    if (word.startsWith("--expression=")) scripts.push(word.slice("--expression=".length));
    else if (SED_LONG.has(word) || SED_FLAGS.test(word)) continue;
    else if (/^-[nErsuz]*e$/.test(word)) {
      if (i + 1 >= args.length) return "-e has no script";
      scripts.push(args[++i]!);
    } else if (word.startsWith("-") && word !== "-") return `its option ${word} is not judged read-only`;
    else files.push(word);
  }
  if (scripts.length === 0) {
    const script = files.shift();
    if (script === undefined) return "it has no script";
    scripts.push(script);
  }
  for (const script of scripts) {
    const why = sedScriptWhy(script);
    if (why) return why;
  }
  return undefined;
}

/** sed commands that only print, select or rearrange text (no `w`, `W`, `e`, `r`, `a`/`i`/`c`). */
const SED_SIMPLE = new Set([..."pPdDqQ=lnNgGhHxz{}!"]);

/** Why a sed script may write or run something, or undefined when it only prints. */
function sedScriptWhy(script: string): string | undefined {
  let i = 0;
  const at = () => script[i];
  /** Skips a /re/ or \cREc delimited part; false when it does not end. */
  const delimited = (close: string): boolean => {
    for (; i < script.length; i++) {
      if (script[i] === "\\") i++;
      else if (script[i] === close) {
        i++;
        return true;
      }
    }
    return false;
  };
  const address = (): boolean => {
    if (/[0-9$]/.test(at() ?? "")) {
      while (/[0-9$~+]/.test(at() ?? "")) i++;
      return true;
    }
    if (at() === "/") {
      i++;
      return delimited("/");
    }
    if (at() === "\\" && i + 1 < script.length) {
      i += 2;
      return delimited(script[i - 1]!);
    }
    return true;
  };

  while (i < script.length) {
    const c = at()!;
    if (/[\s;]/.test(c)) {
      i++;
      continue;
    }
    if (c === "#") {
      while (i < script.length && script[i] !== "\n") i++;
      continue;
    }
    if (!address()) return "an address does not end";
    if (at() === ",") {
      i++;
      if (!address()) return "an address does not end";
    }
    while (at() === " ") i++;
    const command = at();
    if (command === undefined) return undefined;
    i++;
    if (SED_SIMPLE.has(command)) continue;
    if (command === ":" || command === "b" || command === "t" || command === "T") {
      while (i < script.length && script[i] !== ";" && script[i] !== "\n") i++;
      continue;
    }
    if (command === "s" || command === "y") {
      const delimiter = at();
      if (delimiter === undefined || /[\s\\]/.test(delimiter)) return `its ${command} command is malformed`;
      i++;
      if (!delimited(delimiter) || !delimited(delimiter)) return `its ${command} command does not end`;
      if (command === "s") {
        const flags = /^[gpiImM0-9]*/.exec(script.slice(i))![0];
        i += flags.length;
        if (at() !== undefined && !/[\s;}]/.test(at()!))
          return `its s command has the flag ${at()}, which writes or runs something`;
      }
      continue;
    }
    return `its ${command} command ${"wWe".includes(command) ? "writes or runs something" : "is not judged read-only"}`;
  }
  return undefined;
}

/**
 * The read-only list: program → what makes a call of it not read-only. Documented in the tools
 * README ("Read-only commands"); each entry is exercised by the attack tables.
 */
export const READ_ONLY_PROGRAMS: Readonly<Record<string, Check>> = {
  ls: anything,
  cat: anything,
  tac: anything,
  head: anything,
  tail: anything,
  wc: anything,
  nl: anything,
  grep: anything,
  egrep: anything,
  fgrep: anything,
  rg: refusing("", ["pre"]),
  find,
  pwd: anything,
  echo: anything,
  which: anything,
  file: refusing("C", ["compile"]),
  stat: anything,
  du: anything,
  df: anything,
  sort: refusing("o", ["output", "compress-program"]),
  uniq: operands(1),
  cut: anything,
  tr: anything,
  sed,
  git,
  basename: anything,
  dirname: anything,
  realpath: anything,
  readlink: anything,
  diff: anything,
  cmp: anything,
  comm: anything,
  true: anything,
  false: anything,
  test: anything,
  "[": anything,
  cd: anything,
  whoami: anything,
  id: anything,
  uname: anything,
  hostname: operands(0, refusing("bF", ["boot", "file"])),
  date,
};
