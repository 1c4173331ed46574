// Permission rules: parsing the string form, and matching a rule against one tool call.

import { globMatcher } from "@tern/agent";
import picomatch from "picomatch";
import { CommandPattern, type Match } from "./command-pattern.js";
import { readOnlyInvocation } from "./read-only.js";
import { type Root, rootOf, spellings } from "./real-path.js";
import { analyzeCommand } from "./shell.js";
import type { StaticWord } from "./shell-syntax.js";
import type { PermissionRule } from "./types.js";

/** Tools whose rule pattern is a path glob, and the argument that holds the path. */
const PATH_TOOLS: Record<string, { arg: string; fallback?: string }> = {
  read: { arg: "path" },
  write: { arg: "path" },
  edit: { arg: "path" },
  ls: { arg: "path", fallback: "." },
  glob: { arg: "path", fallback: "." },
  grep: { arg: "path", fallback: "." },
};
const COMMAND_TOOLS = new Set(["bash"]);
/** Tools whose rule pattern is `domain:NAME`, and the argument that holds the URL. */
const URL_TOOLS: Record<string, string> = { web_fetch: "url" };
const DOMAIN_PREFIX = "domain:";
/** A path rule covers every tool that touches the path the same way: reading it, or changing it. */
const PATH_FAMILIES: Record<string, readonly string[]> = {
  read: ["read", "grep", "glob", "ls"],
  write: ["write", "edit"],
  edit: ["write", "edit"],
};

/**
 * Parses `name` or `name(pattern)`. Throws with a readable message on bad syntax: rules come from
 * configuration and flags, where the caller reports the error to the user.
 */
export function parseRule(text: string): PermissionRule {
  const trimmed = text.trim();
  const open = trimmed.indexOf("(");
  if (open === -1) {
    if (trimmed === "" || /[\s)]/.test(trimmed)) throw new Error(badRule(text));
    return { tool: trimmed };
  }
  const tool = trimmed.slice(0, open).trim();
  if (tool === "" || /\s/.test(tool) || !trimmed.endsWith(")")) throw new Error(badRule(text));
  const pattern = trimmed.slice(open + 1, -1).trim();
  if (pattern === "") throw new Error(`${badRule(text)} The pattern inside the parentheses is empty.`);
  return { tool, pattern };
}

export function toRule(rule: string | PermissionRule): PermissionRule {
  if (typeof rule === "string") return parseRule(rule);
  if (!rule.tool || typeof rule.tool !== "string")
    throw new Error(`permission rule ${JSON.stringify(rule)} has no tool`);
  return rule.pattern === undefined ? { tool: rule.tool } : { tool: rule.tool, pattern: rule.pattern };
}

export function formatRule(rule: PermissionRule): string {
  return rule.pattern === undefined ? rule.tool : `${rule.tool}(${rule.pattern})`;
}

function badRule(text: string): string {
  return `Invalid permission rule ${JSON.stringify(text)}: use a tool name or glob, optionally with an argument pattern, like "bash", "bash(npm test:*)" or "write(src/**)".`;
}

export interface CallSubject {
  toolName: string;
  args: Record<string, unknown>;
}

/** A rule compiled once into a matcher. */
export class CompiledRule {
  readonly text: string;
  private readonly matchesName: (name: string) => boolean;
  private readonly commandPattern: CommandPattern | undefined;
  private readonly pathPattern: ((p: string) => boolean) | undefined;
  private readonly root: Root | undefined;

  constructor(
    readonly rule: PermissionRule,
    root: string | Root | undefined,
  ) {
    this.text = formatRule(rule);
    this.root = typeof root === "string" ? rootOf(root) : root;
    const byName = globMatcher(rule.tool.toLowerCase());
    const family = PATH_FAMILIES[rule.tool.toLowerCase()] ?? [];
    this.matchesName = (name) => byName(name.toLowerCase()) || family.includes(name.toLowerCase());
    if (rule.pattern !== undefined) {
      this.commandPattern = new CommandPattern(rule.pattern);
      const glob = rule.pattern.replace(/^\.\//, "");
      this.pathPattern = picomatch(glob, { dot: true, basename: !glob.includes("/") });
    }
  }

  /**
   * Deny semantics: for bash, any one command the line can run is enough, wherever it sits
   * (substitutions, bodies, `bash -c` strings, behind `sudo`/`xargs`/`find -exec`, git aliases).
   * "maybe" when the line runs something only the run knows (`$x`, `eval "$x"`, a parse error) or
   * code no rule can see (`BASH_ENV`, a script file), or when a program the executor table does
   * not know is given the denied command as its arguments (`chronic rm x`): the caller asks.
   */
  denies(call: CallSubject): Match {
    if (!this.matchesName(call.toolName)) return "no";
    if (this.rule.pattern === undefined) return "yes";
    if (COMMAND_TOOLS.has(call.toolName)) {
      const shell = analyzeCommand(String(call.args.command ?? ""));
      let result: Match = shell.unresolved.length > 0 || shell.hidden.length > 0 ? "maybe" : "no";
      for (const invocation of shell.invocations) {
        const match = this.commandPattern!.denies(invocation.argv);
        if (match === "yes") return "yes";
        if (match === "maybe" || (invocation.mayRunArguments && this.namedInArguments(invocation.argv)))
          result = "maybe";
      }
      return result;
    }
    return this.matchesArgument(call, true) ? "yes" : "no";
  }

  /** True when the words from some argument on are what the rule denies (`foo -- rm x`). */
  private namedInArguments(argv: readonly StaticWord[]): boolean {
    return argv.some(
      (word, i) => i > 0 && word !== undefined && this.commandPattern!.denies(argv.slice(i)) === "yes",
    );
  }

  /** For deny rules that cover reading: true when the file at `abs` is one the rule names. */
  hidesFromReads(abs: string): boolean {
    return this.rule.pattern !== undefined && this.matchesName("read") && this.pathMatches(abs, true);
  }

  /**
   * The allow rules that together allow a call, or undefined. For bash every command the line can
   * run must be covered (by the same or different rules) or be read-only on its own (`cmd | tail`,
   * read-only.ts); nothing the parser cannot resolve, no
   * redirection into a file and no change of PATH-like variables is covered by a pattern; a bare
   * `bash` rule allows any command.
   */
  static allowing(rules: readonly CompiledRule[], call: CallSubject): CompiledRule[] | undefined {
    const named = rules.filter((rule) => rule.matchesName(call.toolName));
    const bare = named.find((rule) => rule.rule.pattern === undefined);
    if (bare) return [bare];
    if (!COMMAND_TOOLS.has(call.toolName)) {
      const rule = named.find((r) => r.matchesArgument(call, false));
      return rule ? [rule] : undefined;
    }
    const shell = analyzeCommand(String(call.args.command ?? ""));
    if (shell.unresolved.length > 0 || shell.effects.length > 0 || shell.invocations.length === 0)
      return undefined;
    const used: CompiledRule[] = [];
    for (const invocation of shell.invocations) {
      if (invocation.transparent || invocation.functionCall) continue;
      const words = [...invocation.assigns, ...invocation.argv];
      const rule = named.find((r) => r.commandPattern!.allows(words));
      if (rule) {
        if (!used.includes(rule)) used.push(rule);
      } else if (!readOnlyInvocation(invocation).readOnly) return undefined;
    }
    // A line of read-only commands alone is the mode's business, not a rule's.
    return used.length > 0 ? used : undefined;
  }

  /**
   * An argument pattern on a tool with no known path argument never matches. Allow rules match
   * where the path really leads; deny rules also match the path as written.
   */
  private matchesArgument(call: CallSubject, forDeny: boolean): boolean {
    const host = urlHost(call.toolName, call.args);
    if (host !== undefined) return domainMatches(this.rule.pattern!, host);
    const value = pathArgument(call.toolName, call.args);
    return value !== undefined && this.pathMatches(value, forDeny);
  }

  private pathMatches(value: string, forDeny: boolean): boolean {
    const { real, written } = spellings(this.root, value);
    return (forDeny ? [...real, ...written] : real).some((p) => this.pathPattern!(p));
  }
}

export function isCommandTool(name: string): boolean {
  return COMMAND_TOOLS.has(name);
}

export function pathArgument(name: string, args: Record<string, unknown>): string | undefined {
  const tool = PATH_TOOLS[name];
  if (!tool) return undefined;
  const value = args[tool.arg] ?? tool.fallback;
  return typeof value === "string" ? value : undefined;
}

/** The lower-case host of a URL tool's URL argument; undefined for other tools, "" when unparsable. */
export function urlHost(name: string, args: Record<string, unknown>): string | undefined {
  const arg = URL_TOOLS[name];
  if (!arg) return undefined;
  try {
    return new URL(String(args[arg] ?? "")).hostname.toLowerCase().replace(/\.$/, "");
  } catch {
    return "";
  }
}

/** `domain:example.com` covers example.com and every subdomain of it (docs.example.com), nothing else. */
function domainMatches(pattern: string, host: string): boolean {
  if (!pattern.startsWith(DOMAIN_PREFIX) || host === "") return false;
  const domain = pattern.slice(DOMAIN_PREFIX.length).trim().toLowerCase().replace(/\.$/, "");
  return domain !== "" && (host === domain || host.endsWith(`.${domain}`));
}
