// What a bash command line can run, read from its syntax tree: every simple command (in pipelines,
// lists, subshells, substitutions, heredocs, function and control-flow bodies), the commands that
// wrappers and `bash -c`/`eval` strings run, the files it redirects into, and what cannot be known
// without running it. Permission rules are matched against this, never against the raw text.

import {
  nodeType,
  parseScript,
  type ShNode,
  type StaticWord,
  sourceOf,
  staticWord,
  walk,
} from "./shell-syntax.js";
import { unwrap } from "./shell-wrappers.js";

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
}

export interface ShellAnalysis {
  invocations: Invocation[];
  /** Why some of what it runs cannot be known from the source (a parse error, `$x` as a command, `eval "$x"`…). */
  unresolved: string[];
  /** What no command pattern covers: redirections into files, files a wrapper writes, changes to PATH-like variables. */
  effects: string[];
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
  const out: ShellAnalysis = { invocations: [], unresolved: [], effects: [] };
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
      case "DeclClause":
        for (const assign of node.Args) {
          if (assign.Name) this.codeInVariable(assign, depth);
          if (assign.Name) this.setVariable(assign.Name.Value);
          else if (assign.Value && staticWord(assign.Value) === undefined)
            this.out.effects.push(`${node.Variant.Value} of names not known from the source`);
        }
        break;
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
      if (assign.Name) this.codeInVariable(assign, depth);
      if (call.Args.length === 0) {
        if (assign.Name) this.setVariable(assign.Name.Value);
      } else assigns.push(sourceOf(src, assign));
    }
    if (call.Args.length === 0) return;
    const argv = call.Args.map(staticWord);
    if (argv[0] === undefined) {
      this.out.unresolved.push(`the command name ${sourceOf(src, call.Args[0])} is only known when it runs`);
      this.out.invocations.push({ argv, assigns, transparent: false, functionCall: false });
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
      this.out.unresolved.push("a wrapper runs a command whose name is only known when it runs");
      this.out.invocations.push({ argv, assigns, transparent: false, functionCall: false });
      return;
    }
    // Programs run by wrappers (`sudo f`, `xargs f`, `command f`) are never the line's functions.
    const functionCall = !fromWrapper && this.functions.has(argv[0]);
    const unwrapped = functionCall ? undefined : unwrap(argv);
    // A transparent wrapper with nothing to run (`nice` alone) is a command of its own.
    const transparent = (unwrapped?.transparent ?? false) && (unwrapped?.inners?.length ?? 0) > 0;
    this.out.invocations.push({ argv, assigns, transparent, functionCall });
    if (!unwrapped) return;
    if (unwrapped.unresolved) this.out.unresolved.push(unwrapped.unresolved);
    for (const file of unwrapped.writes ?? []) this.out.effects.push(`${argv[0]} writes ${file}`);
    for (const inner of unwrapped.inners ?? []) this.invocation(inner, [], () => undefined, depth, true);
    for (const script of unwrapped.scripts ?? []) this.script(script, depth + 1);
    if (unwrapped.readsStdin) {
      const script = stdin();
      if (script === undefined)
        this.out.unresolved.push(
          `${argv[0]} reads commands from its input, which is not known from the source`,
        );
      else this.script(script, depth + 1);
    }
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

  /** PROMPT_COMMAND runs as a command, and prompts (PS0–PS4) expand `$(…)`: their values are code. */
  private codeInVariable(assign: ShNode, depth: number): void {
    const name: string = assign.Name.Value;
    const isPrompt = /^PS[0-4]$/.test(name);
    if (name !== "PROMPT_COMMAND" && !isPrompt) return;
    const value = assign.Value ? staticWord(assign.Value) : "";
    if (value === undefined) this.out.unresolved.push(`${name} is set to text that is not known`);
    else this.script(isPrompt ? `: "${value.replace(/(["\\])/g, "\\$1")}"` : value, depth + 1);
  }

  private setVariable(name: string): void {
    if (RISKY_VARIABLE.test(name))
      this.out.effects.push(`sets ${name}, which changes what later commands run`);
  }
}

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
