// Shared helpers for the policy tests: one faux model per mode, replies written for that mode,
// a run that collects events, and readers for what the faux provider received.

import type { Message } from "@tern/ai";
import {
  createFaux,
  type FauxProvider,
  type FauxRequest,
  type FauxStep,
  fauxToolCall,
} from "@tern/ai/testing";
import {
  type AgentEvent,
  type AgentLoopConfig,
  type AgentMessage,
  type AgentRunResult,
  type AnyAgentTool,
  agentLoop,
  type InjectKind,
  type LoopPolicy,
} from "../../src/index.js";
import { toolModePolicy } from "../../src/policies/json-mode.js";
import { deterministic, textOf, user } from "../helpers.js";

export type Mode = "native" | "json";
export const MODES: Mode[] = ["native", "json"];

/** Replies in the form each mode's model writes: native tool-call parts, or one JSON object of text. */
export function replies(mode: Mode) {
  return {
    call(name: string, args: Record<string, unknown> = {}): FauxStep {
      if (mode === "native") return { content: [fauxToolCall(name, args)] };
      return JSON.stringify({
        type: "tool_call",
        reasoning: `calling ${name}`,
        tool_name: name,
        tool_args: args,
      });
    },
    answer(text: string): FauxStep {
      if (mode === "native") return text;
      return JSON.stringify({ type: "final_answer", reasoning: "done", answer: text });
    },
  };
}

/** A faux model that has native tool calling only in native mode (so "auto" picks the mode). */
export function fauxFor(mode: Mode, steps: FauxStep[] = []): FauxProvider {
  return createFaux({ replies: steps, abilities: { toolCall: mode === "native" } });
}

export interface Outcome {
  events: AgentEvent[];
  result: AgentRunResult;
}

export async function run(
  faux: FauxProvider,
  tools: AnyAgentTool[],
  policies: LoopPolicy[],
  options: {
    prompt?: string;
    messages?: AgentMessage[];
    config?: Partial<AgentLoopConfig>;
    onEvent?: (e: AgentEvent) => void;
  } = {},
): Promise<Outcome> {
  const stream = agentLoop(
    [user(options.prompt ?? "What is the answer?")],
    { systemPrompt: "You are helpful.", messages: options.messages ?? [], tools },
    { model: faux.model, policies: [toolModePolicy(), ...policies], ...deterministic(), ...options.config },
  );
  const events: AgentEvent[] = [];
  for await (const event of stream) {
    events.push(event);
    options.onEvent?.(event);
  }
  return { events, result: await stream.result() };
}

export function injects(events: AgentEvent[], kind?: InjectKind) {
  return events.filter(
    (e): e is Extract<AgentEvent, { type: "inject" }> =>
      e.type === "inject" && (kind === undefined || e.kind === kind),
  );
}

/** Everything the model got after its last reply in this request, in order (tool results, injected messages). */
export function afterLastReply(request: FauxRequest): string {
  const messages = request.context.messages;
  let start = messages.length;
  while (start > 0 && messages[start - 1]!.role !== "assistant") start--;
  return messages
    .slice(start)
    .map((m) => textOf(m))
    .join("\n---\n");
}

/** All message texts the model got in this request, joined. */
export function allText(request: FauxRequest): string {
  return request.context.messages.map((m: Message) => textOf(m)).join("\n---\n");
}

/** Whether `text` reached the model in request `index` (any message). */
export function sentIn(faux: FauxProvider, index: number, text: string): boolean {
  return allText(faux.requests[index]!).includes(text);
}

export function countOf(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1;
}

export function ofType<T extends AgentEvent["type"]>(events: AgentEvent[], type: T) {
  return events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type);
}
