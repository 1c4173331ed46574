// Readable one-line summaries of a tool call and the rules that would allow calls like it, for
// permission prompts ("Allow bash: npm test? [y]es / [a]lways (bash(npm test:*)) / [n]o").

import path from "node:path";
import { isCommandTool, pathArgument, urlHost } from "./rules.js";
import { analyzeCommand } from "./shell.js";

const MAX_SUMMARY = 300;

/** Programs whose second word picks a subcommand, so "npm test" is a better rule than "npm". */
const SUBCOMMAND_PROGRAMS = new Set([
  "npm",
  "npx",
  "pnpm",
  "yarn",
  "bun",
  "deno",
  "git",
  "cargo",
  "go",
  "docker",
  "kubectl",
  "make",
  "pip",
  "pip3",
  "uv",
  "poetry",
  "dotnet",
  "mvn",
  "gradle",
  "rustup",
  "brew",
  "apt",
  "apt-get",
]);

export function describeCall(toolName: string, args: Record<string, unknown>, root?: string): string {
  let text: string;
  if (isCommandTool(toolName)) text = `${toolName}: ${String(args.command ?? "")}`;
  else if (urlHost(toolName, args) !== undefined) text = `${toolName} ${String(args.url ?? "")}`;
  else {
    const target = pathArgument(toolName, args);
    if (target !== undefined) {
      text = `${toolName} ${displayPath(target, root)}`;
      if (toolName === "edit" && Array.isArray(args.edits))
        text += ` (${args.edits.length} replacement${args.edits.length === 1 ? "" : "s"})`;
      if (toolName === "write" && typeof args.content === "string")
        text += ` (${Buffer.byteLength(args.content)} bytes)`;
    } else {
      const json = JSON.stringify(args);
      text = json === "{}" ? toolName : `${toolName} ${json}`;
    }
  }
  return text.length > MAX_SUMMARY ? `${text.slice(0, MAX_SUMMARY)}…` : text;
}

/**
 * For bash, one prefix rule per simple command: its first word, plus the second for programs with
 * subcommands (`npm test`, `git status`); for file tools the exact path; otherwise the tool name.
 */
export function suggestRules(toolName: string, args: Record<string, unknown>, root?: string): string[] {
  if (isCommandTool(toolName)) {
    const shell = analyzeCommand(String(args.command ?? ""));
    const known = shell.invocations.filter(
      (inv) =>
        !inv.transparent && !inv.functionCall && inv.assigns.length === 0 && /^\S+$/.test(inv.argv[0] ?? ""),
    );
    const rules = known.map(({ argv }) => {
      const words = argv as string[];
      const second = argv[1];
      const withSubcommand =
        SUBCOMMAND_PROGRAMS.has(words[0]!) && second !== undefined && /^[a-z][\w:.-]*$/i.test(second);
      const head = withSubcommand ? `${words[0]} ${second}` : words[0];
      return `${toolName}(${head}:*)`;
    });
    return [...new Set(rules)];
  }
  const target = pathArgument(toolName, args);
  if (target !== undefined) return [`${toolName}(${displayPath(target, root)})`];
  const host = urlHost(toolName, args);
  if (host !== undefined) return host === "" ? [] : [`${toolName}(domain:${host})`];
  return [toolName];
}

function displayPath(target: string, root?: string): string {
  if (!root) return target;
  const rel = path.relative(root, path.resolve(root, target));
  if (rel === "") return ".";
  return rel.startsWith("..") || path.isAbsolute(rel) ? target : rel.split(path.sep).join("/");
}
