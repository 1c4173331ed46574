// Runs the agent loop with a scripted model over the given tools and returns the run's events and
// the results the tools gave.

import {
  type AgentEvent,
  type AgentLoopConfig,
  type AnyAgentTool,
  agentLoop,
  userMessage,
} from "@tern/agent";
import type { ToolResultMessage } from "@tern/ai";
import { createFaux, type FauxStep } from "@tern/ai/testing";

export interface ScriptedRun {
  events: AgentEvent[];
  results: ToolResultMessage[];
  answer: string;
  requests: ReturnType<typeof createFaux>["requests"];
}

export async function runScripted(
  tools: AnyAgentTool[],
  replies: FauxStep[],
  config: Omit<AgentLoopConfig, "model"> = {},
): Promise<ScriptedRun> {
  const faux = createFaux({ replies });
  const stream = agentLoop([userMessage("go", 0)], { messages: [], tools }, { model: faux.model, ...config });
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  const result = await stream.result();
  const results = result.messages.filter(
    (m): m is ToolResultMessage => (m as { role: string }).role === "toolResult",
  );
  return { events, results, answer: result.answer, requests: faux.requests };
}

export function textOf(result: ToolResultMessage | undefined): string {
  return (result?.content ?? [])
    .map((part) => (part.type === "text" ? part.text : `[${part.type}]`))
    .join("\n");
}
