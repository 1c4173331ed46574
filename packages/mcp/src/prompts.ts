// MCP prompts as commands a person types: `mcp__<server>__<prompt>` (named like tools), arguments
// as `key=value` words or positional in the prompt's argument order (the last argument takes any
// extra words), and the `prompts/get` result as one user message (text as is, other content
// described as in tool results). A missing required argument is an error sentence, not a request.

import type { GetPromptResult, Prompt } from "@modelcontextprotocol/sdk/types.js";
import { contentAsText } from "./content.js";

export interface McpPromptCommand {
  /** `mcp__<server>__<prompt>`, unique among the manager's prompts. */
  name: string;
  server: string;
  prompt: Prompt;
}

export type PromptArguments = { ok: true; args: Record<string, string> } | { ok: false; error: string };

/** The words after a prompt command as its arguments. */
export function parsePromptArguments(command: McpPromptCommand, words: readonly string[]): PromptArguments {
  const declared = command.prompt.arguments ?? [];
  const args: Record<string, string> = {};
  const positional: string[] = [];
  for (const word of words) {
    const named = /^([^=\s]+)=(.*)$/.exec(word);
    if (named && declared.some((arg) => arg.name === named[1])) args[named[1]!] = named[2]!;
    else positional.push(word);
  }
  const open = declared.filter((arg) => args[arg.name] === undefined);
  if (positional.length > 0 && open.length === 0)
    return { ok: false, error: `/${command.name} takes no more arguments (got "${positional.join(" ")}")` };
  open.forEach((arg, index) => {
    const last = index === open.length - 1;
    const value = last ? positional.slice(index).join(" ") : positional[index];
    if (value) args[arg.name] = value;
  });
  const missing = declared.filter((arg) => arg.required && !args[arg.name]).map((arg) => arg.name);
  if (missing.length > 0)
    return { ok: false, error: `/${command.name} needs ${missing.join(", ")}: ${promptUsage(command)}` };
  return { ok: true, args };
}

/** `/mcp__s__p topic=… [style=…]` */
export function promptUsage(command: McpPromptCommand): string {
  const args = (command.prompt.arguments ?? []).map((arg) =>
    arg.required ? `${arg.name}=…` : `[${arg.name}=…]`,
  );
  return [`/${command.name}`, ...args].join(" ");
}

/** The messages of a `prompts/get` result as the text of one user message. */
export function promptText(result: GetPromptResult): string {
  return result.messages.map((message) => contentAsText(message.content)).join("\n\n");
}
