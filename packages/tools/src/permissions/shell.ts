// What a bash command line can run, read from its syntax tree: every simple command (in pipelines,
// lists, subshells, substitutions, heredocs, function and control-flow bodies), the commands that
// wrappers and `bash -c`/`eval` strings run, the files it redirects into, and what cannot be known
// without running it. Permission rules are matched against this, never against the raw text.

import { mayRunItsArguments, unwrap, variableRuns } from "./shell-executors.js";
import {
  nodeType,
  parseScript,
  type ShNode,
  type StaticWord,
  sourceOf,
  staticWord,
  walk,
} from "./shell-syntax.js";
import type { Unwrapped } from "./shell-wrappers.js";

/** One command the line can run. */
export interface Invocation {
  /** Its words after quote removal; undefined for a word only the run knows. */
  argv: StaticWord[];
  /** `NAME=value` prefix assignments as written: they change what the command runs with. */
  assigns: string[];
  /** A wrapper that needs no approval of its own (`nice`, `timeout`, `command`): what it runs decides. */
  transparent: boolean;
  /** A call of a function the line defines: its body is checked where it is defined. */
  functionCall: boolean;
  /** A program the executor table does not know and does not know to be inert: it may run its arguments. */
  mayRunArguments: boolean;
}

export interface ShellAnalysis {
  invocations: Invocation[];
  /** Why some of what it runs cannot be known from the source (a parse error, `$x` as a command, `eval "$x"`…). */
  unresolved: string[];
  /** What no command pattern covers: redirections into files, files a wrapper writes, changes to PATH-like variables. */
  effects: string[];
  /**
   * Code the line makes run that no rule can see (a script file, `BASH_ENV`, a git alias from
   * config, a pager a program may start): a bash deny rule asks. Allow rules that spell the
   * command out still allow it.
   */
  hidden: string[];
}

/** `bash -c "bash -c '…'"` nesting deeper than this is not followed: the rules ask instead. */
const MAX_DEPTH = 8;
/** Lines longer than this are not parsed: the rules ask. */
const MAX_COMMAND_BYTES = 100_000;

/** mvdan/sh's RedirOperator values, in the order its syntax package declares them. */
const REDIRECT = {
  out: 54, // >
  append: 55, // >>
  in: 56, // <
  inOut: 57, // <>
  dupIn: 58, // <&
  dupOut: 59, // >&
  clobber: 60, // >|
  heredoc: 61, // <<
  dashHeredoc: 62, // <<-
  hereString: 63, // <<<
  all: 64, // &>
  appendAll: 65, // &>>
} as const;
const WRITING = new Set<number>([
  REDIRECT.out,
  REDIRECT.append,
  REDIRECT.inOut,
  REDIRECT.clobber,
  REDIRECT.all,
  REDIRECT.appendAll,
]);
/** Redirecting into these writes no file. */
const HARMLESS_TARGETS = new Set(["/dev/null", "/dev/stdout", "/dev/stderr"]);

/** Variables that change which programs later commands run or how the shell runs them. */
const RISKY_VARIABLE =
  /^(PATH|IFS|ENV|BASH_ENV|BASHOPTS|SHELLOPTS|PS[0-4]|PROMPT_COMMAND|HOME|EDITOR|VISUAL|NODE_OPTIONS|LD_\w+|DYLD_\w+|GIT_\w+|\w*PAGER)$/;

const cache = new Map<string, ShellAnalysis>();
const CACHE_SIZE = 64;

/** Analyses a command line (cached: a call is checked against several rules). */
export function analyzeCommand(command: string): ShellAnalysis {
  const hit = cache.get(command);
  if (hit) return hit;
  const out: ShellAnalysis = { invocations: [], unresolved: [], effects: [], hidden: [] };
  if (Buffer.byteLength(command) > MAX_COMMAND_BYTES) out.unresolved.push("the command is too long to check");
  else {
    try {
      new Analyzer(out).script(command, 0);
    } catch (error) {
      // The parser or the walk gave up (say, nesting deeper than the stack): nothing is vouched for.
      out.unresolved.push(`it could not be analysed (${(error as Error)?.message ?? String(error)})`);
    }
  }
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
  cache.set(command, out);
  return out;
}

class Analyzer {
  private readonly functions = new Set<string>();

  constructor(private readonly out: ShellAnalysis) {}

  script(src: string, depth: number): void {
    if (depth > MAX_DEPTH) {
      this.out.unresolved.push("scripts are nested too deeply to check");
      return;
    }
    const parsed = parseScript(src);
    if (!parsed.ok) {
      this.out.unresolved.push(`it does not parse as bash (${parsed.error})`);
      return;
    }
    const bytes = Buffer.from(src);
    walk(parsed.file, (node) => {
      if (nodeType(node) === "FuncDecl") this.functions.add(node.Name.Value);
      return true;
    });
    walk(parsed.file, (node) => {
      this.visit(node, bytes, depth);
      return true;
    });
  }

  private visit(node: ShNode, src: Buffer, depth: number): void {
    switch (nodeType(node)) {
      case "Stmt":
        if (node.Cmd && nodeType(node.Cmd) === "CallExpr") this.call(node.Cmd, node.Redirs, src, depth);
        break;
      case "Redirect":
        this.redirect(node, src);
        break;
      case "DeclClause": {
        // `declare -n r=BASH_ENV` makes r another name for BASH_ENV: the value is a variable's name.
        const nameref = node.Args.some(
          (assign: ShNode) => !assign.Name && assign.Value && /^-\w*n/.test(staticWord(assign.Value) ?? ""),
        );
        for (const assign of node.Args) {
          if (assign.Name) {
            const value = assign.Value ? staticWord(assign.Value) : "";
            this.assigned(assign.Name.Value, value, depth);
            if (nameref) this.assigned(value ?? "", undefined, depth);
            this.setVariable(assign.Name.Value);
            continue;
          }
          // `export "BASH_ENV=f"` and `export $n=f` are assignments too.
          const word = assign.Value ? staticWord(assign.Value) : "";
          const named = word === undefined ? undefined : /^([^=]+)=([\s\S]*)$/.exec(word);
          if (named) {
            this.assigned(named[1]!, named[2]!, depth);
            this.setVariable(named[1]!);
          } else if (word === undefined) {
            this.out.effects.push(`${node.Variant.Value} of names not known from the source`);
            this.out.hidden.push(
              `${node.Variant.Value} sets variables whose names are not known from the source`,
            );
          } else this.assigned(word, undefined, depth);
        }
        break;
      }
      case "ArithmExp":
      case "ArithmCmd":
      case "LetClause":
      case "CStyleLoop":
        // Bash evaluates a variable's value as an expression, and `a[$(cmd)]` in it runs cmd.
        if (readsVariables(node))
          this.out.unresolved.push(`${sourceOf(src, node)} evaluates variables as arithmetic`);
        break;
      case "TestClause":
        if (/\s-(eq|ne|lt|le|gt|ge)\s/.test(sourceOf(src, node)) && readsVariables(node))
          this.out.unresolved.push(`${sourceOf(src, node)} evaluates variables as arithmetic`);
        break;
      case "ParamExp":
        // ${x@P} expands x like a prompt, which runs command substitutions in its value; ${!x}
        // and subscripts evaluate a value as a name or arithmetic, where `a[$(cmd)]` runs cmd.
        if (/@P\}$/.test(sourceOf(src, node)) || node.Excl || (node.Index && readsVariables(node.Index)))
          this.out.unresolved.push(`${sourceOf(src, node)} can run code from a variable's value`);
        break;
    }
  }

  private call(call: ShNode, redirects: ShNode[], src: Buffer, depth: number): void {
    const assigns: string[] = [];
    for (const assign of call.Assigns) {
      if (assign.Name) this.assigned(assign.Name.Value, assign.Value ? staticWord(assign.Value) : "", depth);
      if (call.Args.length === 0) {
        if (assign.Name) this.setVariable(assign.Name.Value);
      } else assigns.push(sourceOf(src, assign));
    }
    if (call.Args.length === 0) return;
    const argv = call.Args.map(staticWord);
    if (argv[0] === undefined) {
      this.unknownName(
        argv,
        assigns,
        `the command name ${sourceOf(src, call.Args[0])} is only known when it runs`,
      );
      return;
    }
    this.invocation(argv, assigns, () => standardInput(redirects), depth);
  }

  private invocation(
    argv: StaticWord[],
    assigns: string[],
    stdin: () => string | undefined,
    depth: number,
    fromWrapper = false,
  ): void {
    if (argv[0] === undefined) {
      this.unknownName(argv, assigns, "a wrapper runs a command whose name is only known when it runs");
      return;
    }
    // Programs run by wrappers (`sudo f`, `xargs f`, `command f`) are never the line's functions.
    const functionCall = !fromWrapper && this.functions.has(argv[0]);
    const unwrapped = functionCall ? undefined : unwrap(argv);
    // A transparent wrapper with nothing to run (`nice` alone) is a command of its own.
    const transparent = (unwrapped?.transparent ?? false) && (unwrapped?.inners?.length ?? 0) > 0;
    const mayRunArguments = !functionCall && mayRunItsArguments(argv[0]);
    this.out.invocations.push({ argv, assigns, transparent, functionCall, mayRunArguments });
    if (READS_INTO_VARIABLES.has(argv[0])) this.readsInto(argv, depth);
    if (!unwrapped) return;
    this.runs(unwrapped, depth);
    for (const word of unwrapped.assigns ?? []) {
      const eq = word.indexOf("=");
      this.assigned(word.slice(0, eq), word.slice(eq + 1), depth);
    }
    for (const file of unwrapped.writes ?? []) this.out.effects.push(`${argv[0]} writes ${file}`);
    for (const inner of unwrapped.inners ?? []) this.invocation(inner, [], () => undefined, depth, true);
    if (unwrapped.readsStdin) {
      const script = stdin();
      if (script === undefined)
        this.out.unresolved.push(
          `${argv[0]} reads commands from its input, which is not known from the source`,
        );
      else this.script(script, depth + 1);
    }
  }

  private unknownName(argv: StaticWord[], assigns: string[], why: string): void {
    this.out.unresolved.push(why);
    this.out.invocations.push({
      argv,
      assigns,
      transparent: false,
      functionCall: false,
      mayRunArguments: true,
    });
  }

  private redirect(node: ShNode, src: Buffer): void {
    const op: number = node.Op;
    if (op === REDIRECT.dupOut) {
      const target = staticWord(node.Word);
      if (target !== undefined && /^(\d+|-|\d+-)$/.test(target)) return;
    } else if (!WRITING.has(op)) return;
    const target = staticWord(node.Word);
    if (target !== undefined && HARMLESS_TARGETS.has(target)) return;
    this.out.effects.push(`writes ${sourceOf(src, node)}`);
  }

  /** A variable that runs code (the executor table: `PROMPT_COMMAND`, `PS4`, `BASH_ENV`, `PAGER`…). */
  private assigned(name: string, value: StaticWord, depth: number): void {
    const runs = variableRuns(name, value);
    if (runs) this.runs(runs, depth);
  }

  /** What an executor runs besides the program itself: unknowns, hidden code and scripts. */
  private runs(found: Unwrapped, depth: number): void {
    if (found.unresolved) this.out.unresolved.push(found.unresolved);
    if (found.hidden) this.out.hidden.push(found.hidden);
    for (const script of found.scripts ?? []) this.script(script, depth + 1);
  }

  /** `read BASH_ENV`, `printf -v PAGER …`: a variable that runs code set to a value the run reads. */
  private readsInto(argv: StaticWord[], depth: number): void {
    for (const word of argv.slice(1))
      if (word !== undefined && /^\w+$/.test(word)) this.assigned(word, undefined, depth);
  }

  private setVariable(name: string): void {
    if (RISKY_VARIABLE.test(name))
      this.out.effects.push(`sets ${name}, which changes what later commands run`);
  }
}

/** Builtins that set the variables named in their arguments. */
const READS_INTO_VARIABLES = new Set(["read", "printf", "getopts", "mapfile", "readarray"]);

/** The text a heredoc or here-string feeds a command, when it is known from the source. */
function standardInput(redirects: ShNode[]): string | undefined {
  let text: string | undefined;
  for (const redirect of redirects) {
    const op: number = redirect.Op;
    if (op === REDIRECT.in || op === REDIRECT.dupIn || op === REDIRECT.inOut) text = undefined;
    else if (op === REDIRECT.hereString) {
      const word = staticWord(redirect.Word);
      text = word === undefined ? undefined : `${word}\n`;
    } else if (op === REDIRECT.heredoc || op === REDIRECT.dashHeredoc) text = heredocBody(redirect);
  }
  return text;
}

/** A heredoc body without expansions (quoted delimiter, or none used), as the command reads it. */
function heredocBody(redirect: ShNode): string | undefined {
  if (!redirect.Hdoc) return "";
  let text = "";
  const quoted = redirect.Word.Parts.some(
    (part: ShNode) => nodeType(part) !== "Lit" || part.Value.includes("\\"),
  );
  for (const part of redirect.Hdoc.Parts) {
    if (nodeType(part) !== "Lit") return undefined;
    const raw: string = part.Value;
    text += quoted ? raw : raw.replace(/\\\n/g, "").replace(/\\([$`\\])/g, "$1");
  }
  return text;
}

/** True when an arithmetic or test expression names a variable (`x`, `$x`, `${x}`). */
function readsVariables(node: ShNode): boolean {
  let found = false;
  walk(node, (n) => {
    const type = nodeType(n);
    if (type === "ParamExp" || (type === "Lit" && /^[A-Za-z_]/.test(n.Value))) found = true;
    return !found;
  });
  return found;
}
