// Readable one-line summaries of a tool call and the narrowest rules that would allow calls like
// it, for permission prompts ("Allow bash: npm test? [y]es / [a]lways (bash(npm test:*)) / [n]o").

import { displayPath } from "../workspace.js";
import { readOnlyInvocation } from "./read-only.js";
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
 * The narrowest rules that allow a call like this one, for "always allow" (chat, `serve`'s
 * permission broker and ACP all offer these). For bash, one rule per command of the line that is
 * not read-only (read-only.ts): `prog sub:*` for a program with subcommands (`git commit:*`,
 * `npm test:*`), else the command exactly as its words (`rm -f package.json`), never a bare prefix
 * like `rm:*` or `node:*`. None when a rule cannot allow the line (it writes into a file, runs
 * something only the run knows, or has a word a pattern cannot spell: spaces, `*`).
 * For file tools the exact path; for URL tools the domain; otherwise the tool name.
 */
export function suggestRules(toolName: string, args: Record<string, unknown>, root?: string): string[] {
  if (isCommandTool(toolName)) return commandRules(toolName, String(args.command ?? ""));
  const target = pathArgument(toolName, args);
  if (target !== undefined) return [`${toolName}(${displayPath(target, root)})`];
  const host = urlHost(toolName, args);
  if (host !== undefined) return host === "" ? [] : [`${toolName}(domain:${host})`];
  return [toolName];
}

function commandRules(toolName: string, command: string): string[] {
  const shell = analyzeCommand(command);
  if (shell.unresolved.length > 0 || shell.effects.length > 0) return [];
  const rules: string[] = [];
  for (const invocation of shell.invocations) {
    if (invocation.transparent || invocation.functionCall || readOnlyInvocation(invocation).readOnly)
      continue;
    const words = [...invocation.assigns, ...invocation.argv];
    if (words.some((word) => word === undefined)) return [];
    const [program, second] = invocation.argv as string[];
    if (
      invocation.assigns.length === 0 &&
      SUBCOMMAND_PROGRAMS.has(program!) &&
      second !== undefined &&
      /^[a-z][\w:.-]*$/i.test(second)
    )
      rules.push(`${toolName}(${program} ${second}:*)`);
    else if (words.some((word) => word === "" || /[\s*]/.test(word!))) return [];
    else rules.push(`${toolName}(${words.join(" ")})`);
  }
  return [...new Set(rules)];
}
