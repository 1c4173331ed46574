import type { AssistantMessage, ImageContent, Message, ToolCall, UserMessage } from "@tern/ai";
import type { AgentMessage } from "./types.js";

export function isLlmMessage(message: AgentMessage): message is Message {
  const role = (message as { role?: unknown }).role;
  return role === "user" || role === "assistant" || role === "toolResult";
}

/**
 * Keeps the messages a model understands. Returns the input itself when nothing needs dropping,
 * so a long transcript is not copied on every turn.
 */
export function defaultConvertToLlm(messages: AgentMessage[]): Message[] {
  for (let i = 0; i < messages.length; i++) {
    if (!isLlmMessage(messages[i]!)) return messages.filter(isLlmMessage);
  }
  return messages as Message[];
}

export function userMessage(text: string, timestamp: number, images: ImageContent[] = []): UserMessage {
  if (images.length === 0) return { role: "user", content: text, timestamp };
  return { role: "user", content: [{ type: "text", text }, ...images], timestamp };
}

/** The text parts of a message joined (custom messages: their `text` or `content` string, if any). */
export function messageText(message: AgentMessage): string {
  const content = (message as { content?: unknown }).content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) {
    const text = (message as { text?: unknown }).text;
    return typeof text === "string" ? text : "";
  }
  let text = "";
  for (const part of content as { type: string; text?: string }[]) {
    if (part.type === "text" && part.text) text += text === "" ? part.text : `\n${part.text}`;
  }
  return text;
}

export function assistantText(message: AssistantMessage | undefined): string {
  return message ? messageText(message) : "";
}

export function toolCallsOf(message: AssistantMessage): ToolCall[] {
  const calls: ToolCall[] = [];
  for (const part of message.content) if (part.type === "toolCall") calls.push(part);
  return calls;
}
