// Micro-compaction: old tool results lose their bodies, no model call needed. The newest results
// stay intact because the model is most likely still working with them. Stubs are new message
// objects that keep toolCallId and toolName, so pairing holds and the originals stay untouched
// (a session or UI may still hold them).
import type { ToolResultMessage } from "@tern/ai";
import type { AgentMessage } from "../types.js";
import { isPinned } from "./units.js";

const STUB_PREFIX = "[compacted] The output of tool ";

export interface MicroResult {
  /** The input array itself when nothing changed. */
  messages: AgentMessage[];
  /** How many results were stubbed. */
  stubbed: number;
}

function isToolResult(message: AgentMessage): message is ToolResultMessage {
  return (message as { role?: unknown }).role === "toolResult";
}

function isStub(message: ToolResultMessage): boolean {
  const first = message.content[0];
  return message.content.length === 1 && first?.type === "text" && first.text.startsWith(STUB_PREFIX);
}

/** The stub that stands for `message`: names the tool and what was dropped. */
export function stubFor(message: ToolResultMessage): ToolResultMessage {
  let chars = 0;
  let images = 0;
  for (const part of message.content) {
    if (part.type === "text") chars += part.text.length;
    else images++;
  }
  const dropped = [`${chars.toLocaleString("en-US")} characters`];
  if (images > 0) dropped.push(`${images} image${images === 1 ? "" : "s"}`);
  const text = `${STUB_PREFIX}"${message.toolName}"${message.isError ? " (an error)" : ""} was dropped to save context: ${dropped.join(" and ")}. Run the tool again if you need it.`;
  const stub: ToolResultMessage = {
    role: "toolResult",
    toolCallId: message.toolCallId,
    toolName: message.toolName,
    content: [{ type: "text", text }],
    isError: message.isError,
    timestamp: message.timestamp,
  };
  return stub;
}

/** Stubs every unpinned tool result older than the newest `keep`, unless the stub is not smaller. */
export function microCompact(messages: AgentMessage[], keep: number): MicroResult {
  let seen = 0;
  let out: AgentMessage[] | undefined;
  let stubbed = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (!isToolResult(message)) continue;
    if (++seen <= keep || isPinned(message) || isStub(message)) continue;
    const stub = stubFor(message);
    if (!isLarger(message, stubChars(stub))) continue;
    out ??= messages.slice();
    out[i] = stub;
    stubbed++;
  }
  return { messages: out ?? messages, stubbed };
}

function stubChars(stub: ToolResultMessage): number {
  const part = stub.content[0]!;
  return part.type === "text" ? part.text.length : 0;
}

function isLarger(message: ToolResultMessage, chars: number): boolean {
  let size = 0;
  for (const part of message.content) {
    size += part.type === "text" ? part.text.length : 4_800; // an image costs about 1 200 tokens
    if (size > chars) return true;
  }
  return false;
}
