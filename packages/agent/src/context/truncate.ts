// Deterministic fallbacks, used when no model can help: an outline of the dropped messages in place
// of a summary (the summariser failed or answered nothing), and clipping oversized tool results
// that a cut cannot remove (they belong to the newest turn).
import { estimateMessageTokens, estimateTextTokens, type ToolResultMessage } from "@tern/ai";
import { isLlmMessage } from "../messages.js";
import type { AgentMessage } from "../types.js";
import { isPinned } from "./units.js";

const LINE_CHARS = 200;

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > LINE_CHARS ? `${flat.slice(0, LINE_CHARS)}…` : flat;
}

function outlineLine(message: AgentMessage): string | undefined {
  if (!isLlmMessage(message)) return undefined;
  if (message.role === "user") {
    const text =
      typeof message.content === "string"
        ? message.content
        : message.content.map((p) => (p.type === "text" ? p.text : "[image]")).join(" ");
    return `- user: ${oneLine(text)}`;
  }
  if (message.role === "toolResult") {
    const chars = message.content.reduce((n, p) => n + (p.type === "text" ? p.text.length : 0), 0);
    return `- tool ${message.toolName}${message.isError ? " (error)" : ""}: ${chars.toLocaleString("en-US")} characters`;
  }
  const parts: string[] = [];
  for (const part of message.content) {
    if (part.type === "text" && part.text.trim() !== "") parts.push(oneLine(part.text));
    else if (part.type === "toolCall")
      parts.push(`called ${part.name}(${oneLine(JSON.stringify(part.arguments))})`);
  }
  return parts.length > 0 ? `- assistant: ${parts.join("; ")}` : undefined;
}

/** Cuts `text` to about `tokens` tokens, keeping its start. */
export function clipToTokens(text: string, tokens: number): string {
  if (estimateTextTokens(text) <= tokens) return text;
  let chars = Math.max(0, tokens * 4);
  while (chars > 0 && estimateTextTokens(text.slice(0, chars)) > tokens) chars = Math.floor(chars * 0.8);
  return `${text.slice(0, chars)}\n[… cut]`;
}

/**
 * The summary used when the summariser gives nothing: the previous card (kept, up to half the room)
 * and an outline of the dropped messages, newest kept when it does not all fit `maxTokens`.
 */
export function fallbackSummary(
  older: readonly AgentMessage[],
  previous: string | undefined,
  why: string,
  maxTokens: number,
): string {
  const card = previous ? clipToTokens(previous, Math.floor(maxTokens / 2)) : undefined;
  const header = `## Dropped without a summary\n${why} ${older.length} older messages were dropped; their outline, oldest first:`;
  let room = maxTokens - estimateTextTokens(header) - (card ? estimateTextTokens(card) : 0);
  const lines: string[] = [];
  for (let i = older.length - 1; i >= 0 && room > 0; i--) {
    const line = outlineLine(older[i]!);
    if (line === undefined) continue;
    room -= estimateTextTokens(line) + 1;
    if (room < 0) break;
    lines.push(line);
  }
  lines.reverse();
  const section = [header, ...lines].join("\n");
  return card ? `${card}\n\n${section}` : section;
}

const CLIP_NOTE = "characters cut to fit the context window";
const MIN_KEEP_CHARS = 400;

/**
 * Shrinks the largest unpinned tool results (new objects) until the messages fit `limit` tokens,
 * keeping the head and tail of each. Returns the input itself when it fits or nothing can shrink.
 */
export function clipToFit(messages: AgentMessage[], limit: number): AgentMessage[] {
  let total = 0;
  for (const message of messages) if (isLlmMessage(message)) total += estimateMessageTokens(message);
  if (total <= limit) return messages;
  const order = messages
    .map((message, index) => ({ message, index }))
    .filter(
      (entry): entry is { message: ToolResultMessage; index: number } =>
        (entry.message as { role?: unknown }).role === "toolResult" && !isPinned(entry.message),
    )
    .sort((a, b) => estimateMessageTokens(b.message) - estimateMessageTokens(a.message));
  let out: AgentMessage[] | undefined;
  for (const { message, index } of order) {
    if (total <= limit) break;
    const before = estimateMessageTokens(message);
    const chars = message.content.reduce((n, p) => n + (p.type === "text" ? p.text.length : 0), 0);
    // Scale the text down by the share of the excess this message can absorb.
    const keep = Math.max(MIN_KEEP_CHARS, Math.floor(chars * Math.max(0, 1 - (total - limit) / before)));
    if (keep >= chars) continue;
    const clipped = clipResult(message, keep);
    out ??= messages.slice();
    out[index] = clipped;
    total += estimateMessageTokens(clipped) - before;
  }
  return out ?? messages;
}

function clipResult(message: ToolResultMessage, keep: number): ToolResultMessage {
  const text = message.content.map((p) => (p.type === "text" ? p.text : "")).join("\n");
  const head = Math.floor(keep * 0.7);
  const tail = keep - head;
  const cut = text.length - keep;
  const clipped = `${text.slice(0, head)}\n[… ${cut.toLocaleString("en-US")} ${CLIP_NOTE} …]\n${text.slice(text.length - tail)}`;
  return {
    role: "toolResult",
    toolCallId: message.toolCallId,
    toolName: message.toolName,
    content: [{ type: "text", text: clipped }],
    isError: message.isError,
    timestamp: message.timestamp,
  };
}
