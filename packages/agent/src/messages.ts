import {
  type AssistantMessage,
  emptyUsage,
  type ImageContent,
  type Message,
  type Model,
  type ToolCall,
  type UserMessage,
} from "@tern/ai";
import type { AgentMessage } from "./types.js";

export function isLlmMessage(message: AgentMessage): message is Message {
  const role = (message as { role?: unknown }).role;
  return role === "user" || role === "assistant" || role === "toolResult";
}

/**
 * Keeps the messages a model understands, without the `pinned` flag (a note for the context
 * guard, not for the model). Returns the input itself when nothing needs changing, so a long
 * transcript is not copied on every turn; a pinned message's unflagged copy is made once and
 * kept, so providers' per-message wire caches see the same object every turn.
 */
export function defaultConvertToLlm(messages: AgentMessage[]): Message[] {
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    if (!isLlmMessage(message) || message.pinned !== undefined) return withoutNotes(messages);
  }
  return messages as Message[];
}

const unpinnedCopies = new WeakMap<Message, Message>();

function withoutNotes(messages: AgentMessage[]): Message[] {
  const out: Message[] = [];
  for (const message of messages) {
    if (!isLlmMessage(message)) continue;
    if (message.pinned === undefined) {
      out.push(message);
      continue;
    }
    let copy = unpinnedCopies.get(message);
    if (!copy) {
      const { pinned: _flag, ...rest } = message;
      copy = rest as Message;
      unpinnedCopies.set(message, copy);
    }
    out.push(copy);
  }
  return out;
}

export function userMessage(text: string, timestamp: number, images: ImageContent[] = []): UserMessage {
  if (images.length === 0) return { role: "user", content: text, timestamp };
  return { role: "user", content: [{ type: "text", text }, ...images], timestamp };
}

/** A finished text answer from `model` that no model call produced (so it has no usage). */
export function assistantMessage(model: Model, text: string, timestamp: number): AssistantMessage {
  return {
    role: "assistant",
    content: [{ type: "text", text }],
    api: model.api,
    provider: model.provider,
    model: model.id,
    usage: emptyUsage(),
    stopReason: "stop",
    timestamp,
  };
}

/**
 * The text parts of a message joined (custom messages: their `text` or `content` string, if any).
 * Anything with a message's `content` will do, such as a tool's result.
 */
export function messageText(message: AgentMessage | { content: unknown }): string {
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
