// A tool the client runs: the loop sees an ordinary AgentTool whose `execute` publishes an
// external_tool_request and waits for the client's answer (or an abort, or the client leaving).

import type { AgentToolResult, AnyAgentTool } from "@tern/agent";
import type { ClientToolResult, ClientToolSpec } from "../types.js";
import type { BridgeContext } from "./bridge.js";

const NO_PARAMETERS = { type: "object", properties: {} };

export function clientTool(spec: ClientToolSpec, ctx: BridgeContext): AnyAgentTool {
  return {
    name: spec.name,
    description: spec.description ?? "",
    parameters: spec.parameters ?? NO_PARAMETERS,
    execute: async (args: Record<string, unknown>, { signal, toolCallId }): Promise<AgentToolResult> => {
      if (!ctx.attachment()) {
        return {
          content: `Tool "${spec.name}" runs in the client, and no client is connected.`,
          isError: true,
        };
      }
      const requestId = ctx.newId();
      ctx.publish({ type: "external_tool_request", requestId, toolCallId, toolName: spec.name, args });
      const outcome = await ctx.pending.wait<ClientToolResult>(requestId, signal);
      ctx.publish({ type: "external_tool_result", requestId, toolCallId });
      if (!outcome.ok)
        return { content: `Tool "${spec.name}" did not complete: ${outcome.reason}.`, isError: true };
      return { content: outcome.value.text, isError: outcome.value.isError };
    },
  };
}
