// One MCP tool as a tern AgentTool. Its JSON Schema is passed through (the agent validates calls
// with ajv like any plain-schema tool); `kind` says "read" when the server marks the tool
// read-only (`annotations.readOnlyHint`), else "exec", the field @tern/tools' permission policy
// reads; `mcp` keeps where it came from. A call that cannot reach its server, or that the server
// fails, is a failed result with a clear message; an aborted call rejects (the SDK has already
// sent `notifications/cancelled`).

import type { Progress, Tool, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { AgentTool, AgentToolResult } from "@tern/agent";
import type { JsonSchema } from "@tern/ai";
import type { McpServerConnection } from "./connection.js";
import { type McpResultDetails, toToolResult } from "./content.js";

/** The permission kind of an MCP tool (the same words as @tern/tools' ToolKind). */
export type McpToolKind = "read" | "exec";

export interface McpToolInfo {
  server: string;
  /** The tool's own name on its server. */
  tool: string;
  title?: string;
  annotations?: ToolAnnotations;
  /** Why the model-facing name differs from `mcp__<server>__<tool>`, if it does. */
  nameNote?: string;
}

export interface McpAgentTool extends AgentTool<Record<string, unknown>, McpResultDetails> {
  kind: McpToolKind;
  mcp: McpToolInfo;
}

export interface McpToolOptions {
  /** Treat `readOnlyHint` as "read" kind. Default true (set false for servers you do not trust). */
  trustReadOnlyHints?: boolean;
}

export function isMcpTool(tool: unknown): tool is McpAgentTool {
  return typeof tool === "object" && tool !== null && "mcp" in tool && typeof tool.mcp === "object";
}

export function createMcpTool(
  name: string,
  definition: Tool,
  connection: McpServerConnection,
  options: McpToolOptions & { nameNote?: string } = {},
): McpAgentTool {
  const info: McpToolInfo = { server: connection.name, tool: definition.name };
  if (definition.title) info.title = definition.title;
  if (definition.annotations) info.annotations = definition.annotations;
  if (options.nameNote) info.nameNote = options.nameNote;
  const readOnly = definition.annotations?.readOnlyHint === true && options.trustReadOnlyHints !== false;
  const source = { server: connection.name, tool: definition.name };
  return {
    name,
    label: definition.title ?? definition.annotations?.title ?? `${connection.name}: ${definition.name}`,
    description:
      definition.description ?? `Tool "${definition.name}" of the MCP server "${connection.name}".`,
    parameters: toolSchema(definition),
    kind: readOnly ? "read" : "exec",
    mcp: info,
    async execute(args, { signal, onUpdate }): Promise<AgentToolResult<McpResultDetails>> {
      try {
        const result = await connection.callTool(definition.name, args, {
          signal,
          onprogress: (progress) => {
            onUpdate(progressText(progress)).catch(() => {});
          },
        });
        return toToolResult(result, source);
      } catch (error) {
        if (signal.aborted) throw error;
        return { content: (error as Error)?.message ?? String(error), isError: true, details: source };
      }
    },
  };
}

/** The tool's input schema without `$schema` (some providers reject it). */
function toolSchema(definition: Tool): JsonSchema {
  const { $schema: _dialect, ...rest } = definition.inputSchema as JsonSchema;
  return rest;
}

function progressText(progress: Progress): string {
  const amount =
    progress.total !== undefined ? `${progress.progress}/${progress.total}` : `${progress.progress}`;
  return `progress ${amount}${progress.message ? `: ${progress.message}` : ""}`;
}
