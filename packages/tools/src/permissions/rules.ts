// Permission rules: parsing the string form, and matching a rule against one tool call.

import path from "node:path";
import { globMatcher } from "@tern/agent";
import picomatch from "picomatch";
import { analyzeCommand, effectiveCommand } from "./shell.js";
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
  private readonly commandPattern: RegExp | undefined;
  private readonly pathPattern: ((p: string) => boolean) | undefined;

  constructor(
    readonly rule: PermissionRule,
    private readonly root: string | undefined,
  ) {
    this.text = formatRule(rule);
    const byName = globMatcher(rule.tool.toLowerCase());
    this.matchesName = (name) => byName(name.toLowerCase());
    if (rule.pattern !== undefined) {
      this.commandPattern = commandRegExp(rule.pattern);
      const glob = rule.pattern.replace(/^\.\//, "");
      this.pathPattern = picomatch(glob, { dot: true, basename: !glob.includes("/") });
    }
  }

  /**
   * Deny semantics: for bash, hitting any one simple command is enough, commands nested in
   * substitutions or `bash -c` and wrapped ones (`sudo rm …`, `FOO=1 rm …`) included.
   */
  denies(call: CallSubject): boolean {
    if (!this.matchesName(call.toolName)) return false;
    if (this.rule.pattern === undefined) return true;
    if (COMMAND_TOOLS.has(call.toolName)) {
      const shell = analyzeCommand(String(call.args.command ?? ""));
      const test = (part: string) => this.commandPattern!.test(part);
      return [...shell.commands, ...shell.nested].some((part) => test(part) || test(effectiveCommand(part)));
    }
    return this.matchesPath(call);
  }

  /**
   * The allow rules that together allow a call, or undefined. For bash every simple command of
   * the line must be covered (by the same or different rules), and a pattern never vouches for
   * command substitution or output redirected into files; a bare `bash` rule allows any command.
   */
  static allowing(rules: readonly CompiledRule[], call: CallSubject): CompiledRule[] | undefined {
    const named = rules.filter((rule) => rule.matchesName(call.toolName));
    const bare = named.find((rule) => rule.rule.pattern === undefined);
    if (bare) return [bare];
    if (!COMMAND_TOOLS.has(call.toolName)) {
      const rule = named.find((r) => r.matchesPath(call));
      return rule ? [rule] : undefined;
    }
    const shell = analyzeCommand(String(call.args.command ?? ""));
    if (shell.substitution || shell.writesFiles || shell.commands.length === 0) return undefined;
    const used: CompiledRule[] = [];
    for (const part of shell.commands) {
      const rule = named.find((r) => r.commandPattern!.test(part));
      if (!rule) return undefined;
      if (!used.includes(rule)) used.push(rule);
    }
    return used;
  }

  /** An argument pattern on a tool with no known path argument never matches. */
  private matchesPath(call: CallSubject): boolean {
    const value = pathArgument(call.toolName, call.args);
    return value !== undefined && this.pathPattern!(this.subjectPath(value));
  }

  private subjectPath(value: string): string {
    if (!this.root) return path.posix.normalize(value.split(path.sep).join("/"));
    const abs = path.resolve(this.root, value);
    const rel = path.relative(this.root, abs);
    if (rel === "") return ".";
    if (rel.startsWith("..") || path.isAbsolute(rel)) return abs.split(path.sep).join("/");
    return rel.split(path.sep).join("/");
  }
}

/** `npm test` exact, `npm test:*` that command plus anything after a space, `*` any text. */
function commandRegExp(pattern: string): RegExp {
  let body = pattern.trim().replace(/\s+/g, " ");
  let prefix = false;
  if (body.endsWith(":*")) {
    body = body.slice(0, -2).trimEnd();
    prefix = true;
  }
  const source = body
    .split("*")
    .map((piece) => piece.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${source}${prefix ? "(?: .*)?" : ""}$`, "s");
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
