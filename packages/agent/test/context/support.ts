// Transcript builders and checks for the context-guard tests. The protocol check is written here,
// independently of the code under test.
import {
  type AssistantMessage,
  emptyUsage,
  type Message,
  type ToolResultMessage,
  type UserMessage,
} from "@tern/ai";
import type { FauxRequest } from "@tern/ai/testing";
import type { AgentEvent, AgentMessage } from "../../src/index.js";

export function user(text: string, pinned = false): UserMessage {
  const message: UserMessage = { role: "user", content: text, timestamp: 1 };
  if (pinned) message.pinned = true;
  return message;
}

export function assistant(
  calls: { id: string; name?: string; args?: Record<string, unknown> }[],
  text = "",
): AssistantMessage {
  const content: AssistantMessage["content"] = [];
  if (text) content.push({ type: "text", text });
  for (const call of calls)
    content.push({ type: "toolCall", id: call.id, name: call.name ?? "read", arguments: call.args ?? {} });
  return {
    role: "assistant",
    content,
    api: "faux",
    provider: "faux",
    model: "m",
    usage: emptyUsage(),
    stopReason: calls.length > 0 ? "toolUse" : "stop",
    timestamp: 1,
  };
}

export function result(id: string, text: string, name = "read"): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId: id,
    toolName: name,
    content: [{ type: "text", text }],
    isError: false,
    timestamp: 1,
  };
}

/**
 * One tool turn of exactly 413 estimated tokens: the call `read({"path":"fNN.ts"})` (4 overhead +
 * 1 name + 4 arguments) and a 1,596-character result (4 overhead + 1 name + 399 text).
 */
export function turn(n: number): [AssistantMessage, ToolResultMessage] {
  const id = `c${n}`;
  const path = `f${String(n).padStart(2, "0")}.ts`;
  return [assistant([{ id, args: { path } }]), result(id, `r${n}:`.padEnd(1_596, "x"))];
}

export function turns(from: number, to: number): AgentMessage[] {
  const out: AgentMessage[] = [];
  for (let n = from; n <= to; n++) out.push(...turn(n));
  return out;
}

export function textOf(message: AgentMessage): string {
  const content = (message as { content?: unknown }).content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((p: { type: string; text?: string }) => (p.type === "text" ? p.text : "")).join("\n");
}

/** Everything a faux request carried as text: system prompt and every message. */
export function requestText(request: FauxRequest): string {
  return [request.context.systemPrompt ?? "", ...request.context.messages.map(textOf)].join("\n");
}

/**
 * Throws unless every tool call is answered by results directly after its assistant message
 * (each call once, nothing else), and no result stands anywhere else.
 */
export function assertPaired(messages: readonly AgentMessage[]): void {
  const llm = messages.filter((m) =>
    ["user", "assistant", "toolResult"].includes((m as Message).role),
  ) as Message[];
  for (let i = 0; i < llm.length; i++) {
    const message = llm[i]!;
    if (message.role === "toolResult")
      throw new Error(`result ${message.toolCallId} at ${i} follows no call`);
    if (message.role !== "assistant") continue;
    const ids = message.content.flatMap((p) => (p.type === "toolCall" ? [p.id] : []));
    const answered: string[] = [];
    while (llm[i + 1]?.role === "toolResult") answered.push((llm[++i] as ToolResultMessage).toolCallId);
    if ([...answered].sort().join() !== [...ids].sort().join())
      throw new Error(`calls [${ids}] answered by [${answered}]`);
  }
}

export function recorder() {
  const events: AgentEvent[] = [];
  return { events, emit: (event: AgentEvent) => void events.push(event) };
}
