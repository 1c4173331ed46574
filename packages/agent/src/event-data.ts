import type { AgentEvent, AgentMessage } from "./types.js";

type ContextUpdate = Extract<AgentEvent, { type: "context_update" }>;

/** A context_update as plain data for logs and wires: tools by name, the model by provider and id. */
export interface ContextUpdateData {
  type: "context_update";
  messages?: AgentMessage[];
  model?: { provider: string; id: string };
  thinkingLevel?: ContextUpdate["thinkingLevel"];
  systemPrompt?: string;
  tools?: string[];
}

/**
 * context_update carries live tools (functions, schemas) and a Model (possibly with headers that
 * hold keys); anything that writes events out keeps only what identifies them.
 */
export function contextUpdateData(event: ContextUpdate): ContextUpdateData {
  const out: ContextUpdateData = { type: "context_update" };
  if (event.messages) out.messages = event.messages;
  if (event.model) out.model = { provider: event.model.provider, id: event.model.id };
  if (event.thinkingLevel) out.thinkingLevel = event.thinkingLevel;
  if (event.systemPrompt !== undefined) out.systemPrompt = event.systemPrompt;
  if (event.tools) out.tools = event.tools.map((tool) => tool.name);
  return out;
}
