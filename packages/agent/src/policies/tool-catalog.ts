// The compact tool catalog: one line a tool (name and the first sentence of its description,
// about 80 characters), so a selection call or a `request_tools` description stays small.

import type { AnyAgentTool } from "../types.js";

export const DEFAULT_CATALOG_LINE_CHARS = 80;

function catalogLine(tool: AnyAgentTool, maxChars = DEFAULT_CATALOG_LINE_CHARS): string {
  const firstLine = tool.description.trim().split("\n")[0] ?? "";
  const line = `${tool.name}: ${firstLine}`;
  return line.length <= maxChars ? line : `${line.slice(0, maxChars - 1).trimEnd()}…`;
}

export function catalog(tools: readonly AnyAgentTool[], maxChars = DEFAULT_CATALOG_LINE_CHARS): string {
  return tools.map((tool) => `- ${catalogLine(tool, maxChars)}`).join("\n");
}
