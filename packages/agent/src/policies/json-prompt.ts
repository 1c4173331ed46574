// What a JSON-mode model is sent: the tool catalog and the reply protocol in the system prompt, and
// the history rewritten in the protocol's own terms (its earlier tool calls as the JSON objects it
// would have written, tool results as user messages). Consecutive user messages are merged, since
// many chat templates of local models require alternating roles.

import type { AssistantMessage, Context, Message, ToolSpec, UserContent, UserMessage } from "@tern/ai";

export function jsonSystemPrompt(base: string | undefined, tools: readonly ToolSpec[]): string {
  const protocol = [
    "# How to reply",
    "Work step by step. Each reply is exactly one JSON object and nothing else (no prose, no code fence).",
    "To call a tool:",
    '{"type": "tool_call", "reasoning": "<why this step>", "tool_name": "<tool name>", "tool_args": {<arguments>}}',
    "To give the final answer:",
    '{"type": "final_answer", "reasoning": "<why you can answer now>", "answer": "<the complete answer for the user>"}',
    "Call one tool per reply. Its result comes back in the next message, then you decide the next step.",
    "",
    "# Tools",
    ...tools.map(describeTool),
  ].join("\n");
  return base ? `${base}\n\n${protocol}` : protocol;
}

function describeTool(tool: ToolSpec): string {
  return `## ${tool.name}\n${tool.description}\nArguments (JSON Schema): ${JSON.stringify(tool.parameters)}`;
}

/** The history in protocol form. `raw` holds replies that were not valid JSON: they are replayed as written. */
export function jsonMessages(messages: readonly Message[], raw: WeakSet<AssistantMessage>): Message[] {
  const out: Message[] = [];
  for (const message of messages) {
    if (message.role === "assistant") {
      const text = raw.has(message) ? textOf(message) : protocolText(message);
      if (text !== "") out.push({ ...message, content: [{ type: "text", text }] });
      continue;
    }
    const user = message.role === "user" ? message : resultAsUser(message);
    const previous = out[out.length - 1];
    if (previous?.role === "user") out[out.length - 1] = merge(previous, user);
    else out.push(user);
  }
  return out;
}

function protocolText(message: AssistantMessage): string {
  const text = textOf(message);
  const reasoning = text || thinkingOf(message);
  const calls = message.content.filter((part) => part.type === "toolCall");
  if (calls.length === 0) {
    if (text === "") return "";
    return JSON.stringify({ type: "final_answer", reasoning: thinkingOf(message), answer: text });
  }
  return calls
    .map((call) =>
      JSON.stringify({ type: "tool_call", reasoning, tool_name: call.name, tool_args: call.arguments }),
    )
    .join("\n");
}

function resultAsUser(message: Extract<Message, { role: "toolResult" }>): UserMessage {
  const header = `[${message.isError ? "Tool error" : "Tool result"}] ${message.toolName}`;
  const content: UserContent[] = [{ type: "text", text: header }, ...message.content];
  return { role: "user", content: joinText(content), timestamp: message.timestamp };
}

function merge(a: UserMessage, b: UserMessage): UserMessage {
  const parts = [...asParts(a.content), { type: "text" as const, text: "" }, ...asParts(b.content)];
  return { role: "user", content: joinText(parts), timestamp: b.timestamp };
}

/** Adjacent text parts become one (separated by a newline); a text-only message becomes a string. */
function joinText(parts: UserContent[]): UserMessage["content"] {
  const out: UserContent[] = [];
  for (const part of parts) {
    const last = out[out.length - 1];
    if (part.type === "text" && last?.type === "text")
      out[out.length - 1] = { type: "text", text: `${last.text}\n${part.text}` };
    else out.push(part);
  }
  if (out.every((part) => part.type === "text"))
    return out.map((part) => (part as { text: string }).text).join("\n");
  return out;
}

function asParts(content: UserMessage["content"]): UserContent[] {
  return typeof content === "string" ? [{ type: "text", text: content }] : content;
}

function textOf(message: AssistantMessage): string {
  let text = "";
  for (const part of message.content) if (part.type === "text") text += part.text;
  return text.trim();
}

function thinkingOf(message: AssistantMessage): string {
  let text = "";
  for (const part of message.content) if (part.type === "thinking") text += part.thinking;
  return text.trim();
}

/** The context a JSON-mode model gets instead of `context`. */
export function jsonContext(context: Context, raw: WeakSet<AssistantMessage>): Context {
  return {
    systemPrompt: jsonSystemPrompt(context.systemPrompt, context.tools ?? []),
    messages: jsonMessages(context.messages, raw),
  };
}
