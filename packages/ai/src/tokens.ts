import type { Context, Message, ToolSpec } from "./types.js";

// A fast, provider-free estimate for budgeting. Latin text runs about four characters a token;
// CJK scripts are closer to one token a character, so they weigh more.
const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f]/g;
const IMAGE_TOKENS = 1200;
const MESSAGE_OVERHEAD = 4;

export function estimateTextTokens(text: string): number {
  if (text === "") return 0;
  const cjk = text.match(CJK)?.length ?? 0;
  return cjk + Math.ceil((text.length - cjk) / 4);
}

const cache = new WeakMap<Message, number>();

/**
 * Estimate for one message, cached by identity: messages are treated as immutable once they
 * are part of a context, so a long run re-estimates only what is new.
 */
export function estimateMessageTokens(message: Message): number {
  const cached = cache.get(message);
  if (cached !== undefined) return cached;
  const tokens = MESSAGE_OVERHEAD + contentTokens(message);
  cache.set(message, tokens);
  return tokens;
}

function contentTokens(message: Message): number {
  if (typeof message.content === "string") return estimateTextTokens(message.content);
  let tokens = message.role === "toolResult" ? estimateTextTokens(message.toolName) : 0;
  for (const part of message.content) {
    if (part.type === "text") tokens += estimateTextTokens(part.text);
    else if (part.type === "image") tokens += IMAGE_TOKENS;
    else if (part.type === "thinking") tokens += estimateTextTokens(part.thinking);
    else tokens += estimateTextTokens(part.name) + estimateTextTokens(JSON.stringify(part.arguments));
  }
  return tokens;
}

export function estimateToolTokens(tools: ToolSpec[]): number {
  let tokens = 0;
  for (const tool of tools) {
    tokens += estimateTextTokens(tool.name) + estimateTextTokens(tool.description);
    tokens += estimateTextTokens(JSON.stringify(tool.parameters));
  }
  return tokens;
}

export function estimateContextTokens(context: Context): number {
  let tokens = context.systemPrompt ? estimateTextTokens(context.systemPrompt) : 0;
  for (const message of context.messages) tokens += estimateMessageTokens(message);
  return tokens + estimateToolTokens(context.tools ?? []);
}
