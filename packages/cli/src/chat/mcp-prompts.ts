// MCP prompts as slash commands of `tern chat`: each prompt of a server that is up is
// `/mcp__SERVER__PROMPT` (named like its tools), its arguments `key=value` words or positional in
// the prompt's order, quoted with "…" or '…' to hold spaces. Running one calls `prompts/get` and
// sends the result's messages, as they are (no `@` attachments: the text is the server's), as the
// user message. A bad argument, a server still starting or a server's error is one line; nothing
// is sent and the chat goes on.

import {
  MCP_TOOL_PREFIX,
  type McpManager,
  type McpPromptCommand,
  parsePromptArguments,
  promptText,
  promptUsage,
  sanitizeNamePart,
} from "@tern/mcp";
import { errorText } from "../cli/errors.js";
import { oneLine } from "../render/format.js";
import type { SlashContext } from "./slash.js";

type McpPromptContext = Pick<SlashContext, "runtime" | "style" | "print" | "prompt">;

interface Word {
  text: string;
  /** The `key` of a `key=value` word whose key was typed outside quotes. */
  key?: string;
}

/**
 * Runs `/NAME ARGS` when NAME is an MCP prompt, or names the server it would belong to; false
 * when it is none of the MCP servers' (the caller tries its other commands).
 */
export async function runMcpPrompt(name: string, args: string, ctx: McpPromptContext): Promise<boolean> {
  const mcp = ctx.runtime.mcp;
  if (!mcp || !name.startsWith(MCP_TOOL_PREFIX)) return false;
  const { style, print } = ctx;
  const command = mcp.prompts().find((c) => c.name === name);
  if (!command) {
    const why = missingPrompt(name, mcp);
    if (why) print(style.yellow(why));
    return why !== undefined;
  }
  const parsed = promptArguments(command, args);
  if (!parsed.ok) {
    print(style.yellow(parsed.error));
    return true;
  }
  let text: string;
  try {
    text = promptText(await mcp.getPrompt(command, parsed.args));
  } catch (error) {
    print(style.red(`✗ /${name}: ${oneLine(errorText(error), 200)}`));
    return true;
  }
  if (text.trim() === "") print(style.yellow(`/${name}: the server's prompt is empty; nothing sent`));
  else ctx.prompt(text, undefined, true);
  return true;
}

/** The `/help` lines of the prompts of the servers that are up, and of the servers still starting. */
export function mcpPromptHelp(mcp: McpManager | undefined): string[] {
  if (!mcp) return [];
  const lines: string[] = [];
  const commands = mcp.prompts();
  if (commands.length > 0)
    lines.push('MCP prompts (key=value or positional arguments, "quotes" hold spaces):');
  for (const command of commands) {
    const { description, arguments: declared = [] } = command.prompt;
    lines.push(`${promptUsage(command)}${description ? `  ${oneLine(description, 70)}` : ""}`);
    for (const arg of declared)
      if (arg.description) lines.push(`    ${arg.name}: ${oneLine(arg.description, 70)}`);
  }
  const starting = startingServers(mcp);
  if (starting.length > 0)
    lines.push(`MCP servers still starting (their prompts come later): ${starting.join(", ")}`);
  return lines;
}

/** The words after the command as the prompt's arguments, or the one line that says what is wrong. */
export function promptArguments(
  command: McpPromptCommand,
  args: string,
): { ok: true; args: Record<string, string> } | { ok: false; error: string } {
  const words = splitWords(args);
  if (!words.ok) return { ok: false, error: `/${command.name}: ${words.error}` };
  const declared = (command.prompt.arguments ?? []).map((arg) => arg.name);
  const unknown = words.words.flatMap((word) =>
    word.key !== undefined && !declared.includes(word.key) ? [word.key] : [],
  );
  if (unknown.length > 0)
    return {
      ok: false,
      error: `/${command.name} has no argument ${unknown.join(", ")} (it takes ${declared.join(", ") || "none"}): ${promptUsage(command)}`,
    };
  return parsePromptArguments(
    command,
    words.words.map((word) => word.text),
  );
}

/** Splits at unquoted whitespace; quotes group and are dropped. */
function splitWords(text: string): { ok: true; words: Word[] } | { ok: false; error: string } {
  const words: Word[] = [];
  let current: { text: string; quotedAt: number } | undefined;
  let quote: string | undefined;
  for (const char of text) {
    if (quote !== undefined) {
      if (char === quote) quote = undefined;
      else current!.text += char;
    } else if (/\s/.test(char)) {
      if (current) words.push(word(current.text, current.quotedAt));
      current = undefined;
    } else {
      current ??= { text: "", quotedAt: Number.POSITIVE_INFINITY };
      if (char === '"' || char === "'") {
        quote = char;
        current.quotedAt = Math.min(current.quotedAt, current.text.length);
      } else current.text += char;
    }
  }
  if (quote !== undefined) return { ok: false, error: `a ${quote} is not closed` };
  if (current) words.push(word(current.text, current.quotedAt));
  return { ok: true, words };
}

function word(text: string, quotedAt: number): Word {
  const key = /^([A-Za-z_][\w.-]*)=/.exec(text);
  return key && key[0].length <= quotedAt ? { text, key: key[1]! } : { text };
}

/** Why `name` is no prompt, when it would be one of a server's: still starting, failed, or not its. */
function missingPrompt(name: string, mcp: McpManager): string | undefined {
  const servers = mcp.status();
  const server = servers.find((s) => name.startsWith(`${MCP_TOOL_PREFIX}${sanitizeNamePart(s.name)}__`));
  if (!server) {
    const starting = startingServers(mcp);
    return starting.length > 0
      ? `no MCP prompt /${name} yet: MCP servers still starting (${starting.join(", ")}); /help lists the prompts when they are up`
      : undefined;
  }
  const label = `MCP server "${server.name}"`;
  switch (server.state) {
    case "ready":
      return `${label} has no prompt /${name}; /help lists its prompts`;
    case "failed":
      return `${label} failed${server.error ? ` (${oneLine(server.error, 120)})` : ""}; /mcp retry ${server.name} tries again`;
    case "closed":
      return `${label} is closed`;
    default:
      return `${label} is still starting; /${name} works when it is up (/mcp shows its state)`;
  }
}

function startingServers(mcp: McpManager): string[] {
  return mcp
    .status()
    .filter((s) => s.state === "idle" || s.state === "starting" || s.state === "restarting")
    .map((s) => s.name);
}
