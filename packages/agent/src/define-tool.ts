import type { AgentTool } from "./types.js";

/** Identity helper that infers a tool's argument type from its zod schema. */
export function defineTool<TParams, TDetails = unknown>(
  tool: AgentTool<TParams, TDetails>,
): AgentTool<TParams, TDetails> {
  return tool;
}
