// Message content in the GenAI conventions' JSON shape (`{ role, parts: [...] }`), for the opt-in
// `gen_ai.input.messages` / `gen_ai.output.messages` and tool argument and result attributes.
// Images are named, not inlined, and every value is capped: a trace is not a transcript store.

import type { AssistantContent, UserContent } from "@tern/ai";
import type { AgentMessage, ToolOutcome } from "../types.js";

/** Longest content attribute, in characters; the rest is cut with a marker. */
export const MAX_CONTENT_CHARS = 32_000;

type Part =
  | { type: "text"; content: string }
  | { type: "reasoning"; content: string }
  | { type: "tool_call"; id: string; name: string; arguments: Record<string, unknown> }
  | { type: "tool_call_response"; id: string; response: string }
  | { type: "blob"; modality: "image"; mime_type: string };

interface SemconvMessage {
  role: string;
  parts: Part[];
  finish_reason?: string;
}

function partOf(part: UserContent | AssistantContent): Part {
  switch (part.type) {
    case "text":
      return { type: "text", content: part.text };
    case "thinking":
      return { type: "reasoning", content: part.redacted ? "" : part.thinking };
    case "toolCall":
      return { type: "tool_call", id: part.id, name: part.name, arguments: part.arguments };
    case "image":
      return { type: "blob", modality: "image", mime_type: part.mimeType };
  }
}

function textOf(content: string | readonly (UserContent | AssistantContent)[]): string {
  if (typeof content === "string") return content;
  let text = "";
  for (const part of content) if (part.type === "text") text += part.text;
  return text;
}

/** A transcript message in the conventions' shape; undefined for custom (non-model) messages. */
export function semconvMessage(message: AgentMessage, finishReason?: string): SemconvMessage | undefined {
  const m = message as { role?: string };
  if (m.role === "user" || m.role === "assistant") {
    const { content } = message as { content: string | (UserContent | AssistantContent)[] };
    const parts =
      typeof content === "string" ? [partOf({ type: "text", text: content })] : content.map(partOf);
    const out: SemconvMessage = { role: m.role, parts };
    if (finishReason !== undefined) out.finish_reason = finishReason;
    return out;
  }
  if (m.role === "toolResult") {
    const result = message as { toolCallId: string; content: UserContent[] };
    return {
      role: "tool",
      parts: [{ type: "tool_call_response", id: result.toolCallId, response: textOf(result.content) }],
    };
  }
  return undefined;
}

export function outcomeText(outcome: ToolOutcome): string {
  return textOf(outcome.content);
}

/** JSON for an attribute, redacted, then cut at MAX_CONTENT_CHARS. */
export function contentAttribute(value: unknown, redact: (text: string) => string): string {
  const text = redact(typeof value === "string" ? value : safeJson(value));
  if (text.length <= MAX_CONTENT_CHARS) return text;
  return `${text.slice(0, MAX_CONTENT_CHARS)}… [${text.length - MAX_CONTENT_CHARS} more characters]`;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return String(value);
  }
}
