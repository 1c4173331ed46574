// Shared test helpers: temporary store homes, a deterministic clock and id generator, message makers.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AssistantMessage, ToolCall, ToolResultMessage, UserMessage } from "@tern/ai";
import type { SessionOptions } from "../../src/types.js";

export function tempHome(prefix = "tern-session-"): { home: string; cleanup: () => void } {
  const home = mkdtempSync(join(tmpdir(), prefix));
  return { home, cleanup: () => rmSync(home, { recursive: true, force: true }) };
}

/** Ids e1, e2, ... and a clock that ticks one second per call from 2026-01-01. */
export function deterministic(): SessionOptions {
  let id = 0;
  let time = Date.UTC(2026, 0, 1);
  let session = 0;
  return {
    newId: () => `e${++id}`,
    now: () => (time += 1000),
    newSessionId: () => `s${++session}`,
  };
}

export function user(text: string, timestamp = 1): UserMessage {
  return { role: "user", content: text, timestamp };
}

export function assistant(text: string, calls: ToolCall[] = [], cost = 0): AssistantMessage {
  return {
    role: "assistant",
    content: [...(text ? [{ type: "text" as const, text }] : []), ...calls],
    api: "faux",
    provider: "faux",
    model: "faux-1",
    usage: {
      input: 10,
      output: 5,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 15,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: cost },
    },
    stopReason: calls.length > 0 ? "toolUse" : "stop",
    timestamp: 2,
  };
}

export function call(id: string, name = "read", args: Record<string, unknown> = {}): ToolCall {
  return { type: "toolCall", id, name, arguments: args };
}

export function result(toolCallId: string, text: string, toolName = "read"): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId,
    toolName,
    content: [{ type: "text", text }],
    isError: false,
    timestamp: 3,
  };
}

/** The plain text of a message, for compact assertions. */
export function textOf(message: { content: unknown }): string {
  const content = message.content;
  if (typeof content === "string") return content;
  return (content as { type: string; text?: string; name?: string }[])
    .map((part) => (part.type === "text" ? part.text : part.type === "toolCall" ? `call:${part.name}` : ""))
    .join("|");
}
