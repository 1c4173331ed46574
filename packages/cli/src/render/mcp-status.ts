// MCP servers as text, for `tern mcp ls` and chat's `/mcp`: one line a server (name, state and
// what it runs), its error, and one line a tool (read-only ones marked, renames explained).
import type { Style } from "./style.js";

export interface McpStatusRow {
  name: string;
  state: string;
  /** Where it was declared (project, user, extra) and what it runs, when known. */
  scope?: string;
  target?: string;
  transport?: string;
  /** The MCP protocol version negotiated with the server. */
  protocolVersion?: string;
  error?: string;
  restarts?: number;
  /** How long it was waited for (`tern mcp ls`): a server still starting then did not answer in time. */
  waitedMs?: number;
  tools: { name: string; readOnly: boolean; note?: string }[];
}

export function mcpStatusLines(rows: readonly McpStatusRow[], style: Style): string[] {
  const lines: string[] = [];
  for (const row of rows) {
    const state =
      row.state !== "starting"
        ? row.state
        : `still starting${row.waitedMs !== undefined ? ` (did not answer within ${row.waitedMs} ms)` : ""}`;
    const color = row.state === "ready" ? style.green : row.state === "failed" ? style.red : style.yellow;
    const extra = [
      row.scope,
      row.target,
      row.transport && row.transport !== "stdio" ? `(${row.transport})` : undefined,
      row.protocolVersion ? `MCP ${row.protocolVersion}` : undefined,
      row.restarts ? `restarted ${row.restarts}×` : undefined,
    ].filter((part) => part !== undefined && part !== "");
    lines.push(`${row.name}  ${color(state)}${extra.length > 0 ? `  ${extra.join("  ")}` : ""}`);
    if (row.error) lines.push(`  ${style.red("error:")} ${row.error.split("\n")[0]}`);
    for (const tool of row.tools)
      lines.push(
        `  ${tool.name}${tool.readOnly ? "  (read-only)" : ""}${tool.note ? `  ${style.dim(tool.note)}` : ""}`,
      );
  }
  return lines;
}
