// Shared test helpers: collecting events, deterministic config, small tools, transcript checks.
import type { AssistantMessage, Message, ToolResultMessage } from "@tern/ai";
import { z } from "zod";
import type { AgentEventStream } from "../src/event-stream.js";
import type { AgentEvent, AgentMessage, AgentTool } from "../src/index.js";

export async function collect(stream: AgentEventStream): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

export function types(events: AgentEvent[]): string[] {
  return events.map((event) => event.type);
}

/** Event types with consecutive message_update collapsed, for readable order assertions. */
export function outline(events: AgentEvent[]): string[] {
  const out: string[] = [];
  for (const event of events) {
    let label: string = event.type;
    if (event.type === "message_start" || event.type === "message_end") {
      label += `:${(event.message as { role: string }).role}`;
    }
    if (event.type === "tool_execution_start" || event.type === "tool_execution_end") {
      label += `:${event.toolCallId}`;
    }
    if (event.type === "inject") label += `:${event.kind}`;
    if (out[out.length - 1] === label && label === "message_update") continue;
    out.push(label);
  }
  return out;
}

export function user(text: string, timestamp = 0): Message {
  return { role: "user", content: text, timestamp };
}

/** A clock that moves 10 ms each time it is read, and an id counter. */
export function deterministic() {
  let time = 1_000;
  let id = 0;
  return { now: () => (time += 10), ids: () => `id-${++id}` };
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(Object.assign(new Error("aborted"), { name: "AbortError" }));
      },
      { once: true },
    );
  });
}

export function echoTool(log: string[] = []): AgentTool<{ text: string }> {
  return {
    name: "echo",
    description: "Echo the text back",
    parameters: z.object({ text: z.string() }),
    execute: (args) => {
      log.push(args.text);
      return `echo: ${args.text}`;
    },
  };
}

/** Tracks how many calls of it run at once. */
export function timedTool(name: string, tracker: { active: number; max: number; order: string[] }) {
  const tool: AgentTool<{ ms: number; tag: string }> = {
    name,
    description: "Waits ms milliseconds",
    parameters: z.object({ ms: z.number(), tag: z.string() }),
    execute: async ({ ms, tag }, { signal }) => {
      tracker.active++;
      tracker.max = Math.max(tracker.max, tracker.active);
      try {
        await sleep(ms, signal);
      } finally {
        tracker.active--;
      }
      tracker.order.push(tag);
      return `done ${tag}`;
    },
  };
  return tool;
}

/**
 * A tool whose calls wait until the test releases them by tag: the order calls end in is the
 * test's, never the timers' (a loaded machine fires timers late and out of step).
 */
export function gatedTool(name: string, tracker: { active: number; max: number; order: string[] }) {
  const gates = new Map<string, () => void>();
  const started: (() => void)[] = [];
  const tool: AgentTool<{ tag: string }> = {
    name,
    description: "Waits until released",
    parameters: z.object({ tag: z.string() }),
    execute: async ({ tag }) => {
      tracker.active++;
      tracker.max = Math.max(tracker.max, tracker.active);
      await new Promise<void>((resolve) => {
        gates.set(tag, resolve);
        for (const wake of started.splice(0)) wake();
      });
      tracker.active--;
      tracker.order.push(tag);
      return `done ${tag}`;
    },
  };
  return {
    tool,
    /** Resolves once `count` calls wait at their gates. */
    async waiting(count: number): Promise<void> {
      while (gates.size < count) await new Promise<void>((wake) => started.push(wake));
    },
    /** Ends the call tagged `tag`, then lets its end be told before the next release. */
    async release(tag: string): Promise<void> {
      gates.get(tag)?.();
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

export function tracker() {
  return { active: 0, max: 0, order: [] as string[] };
}

export function textOf(message: AgentMessage | undefined): string {
  const content = (message as { content?: unknown } | undefined)?.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((part: { type: string }) => part.type === "text")
    .map((part: { text: string }) => part.text)
    .join("");
}

export function results(messages: AgentMessage[]): ToolResultMessage[] {
  return messages.filter((m): m is ToolResultMessage => (m as Message).role === "toolResult");
}

/** Every tool call is answered by a result, and results come right after their assistant message. */
export function expectValidTranscript(messages: AgentMessage[]): void {
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i] as Message;
    if (message.role === "toolResult") {
      const previous = messages
        .slice(0, i)
        .reverse()
        .find((m) => (m as Message).role !== "toolResult") as Message;
      if (previous?.role !== "assistant")
        throw new Error(`result at ${i} does not follow an assistant message`);
    }
    if (message.role !== "assistant") continue;
    const ids = (message as AssistantMessage).content.flatMap((p) => (p.type === "toolCall" ? [p.id] : []));
    const answered: string[] = [];
    for (let j = i + 1; j < messages.length && (messages[j] as Message).role === "toolResult"; j++) {
      answered.push((messages[j] as ToolResultMessage).toolCallId);
    }
    if (JSON.stringify(answered) !== JSON.stringify(ids)) {
      throw new Error(`calls ${JSON.stringify(ids)} answered by ${JSON.stringify(answered)}`);
    }
  }
}
