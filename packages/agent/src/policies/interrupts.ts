// Interrupts: messages a user sends while the agent works. They share the steering queue (one
// queue, one semantics): the loop drains it at turn boundaries — after each assistant message and
// its tool results, never between a call and its result — and before a final answer is accepted,
// so a pending answer is held back and the loop goes on. This policy turns what one drain yields
// into a single pinned `[USER INTERRUPT]` message (the context guard keeps it verbatim).

import type { ImageContent } from "@tern/ai";
import { messageText } from "../messages.js";
import type { LoopPolicy, PolicyInjection } from "../policy.js";
import type { AgentMessage } from "../types.js";

export const INTERRUPT_TAG = "[USER INTERRUPT]";

export function interruptText(texts: string[]): string {
  const body = texts.length === 1 ? texts[0]! : texts.map((text, i) => `${i + 1}. ${text}`).join("\n");
  const what = texts.length === 1 ? "a message" : `${texts.length} messages`;
  return `${INTERRUPT_TAG} The user sent ${what} while you were working:\n${body}\nTake it into account before you continue: adjust your plan, or answer it if it asks something.`;
}

export function interrupts(): LoopPolicy {
  return {
    name: "interrupts",
    start: () => ({
      onSteering: (run, messages): PolicyInjection[] | undefined => {
        const users = messages.filter(isUser);
        if (users.length === 0) return undefined;
        const images: ImageContent[] = [];
        for (const message of users) {
          if (Array.isArray(message.content)) {
            for (const part of message.content) if (part.type === "image") images.push(part);
          }
        }
        const text = interruptText(users.map((message) => messageText(message)));
        const merged: AgentMessage = {
          role: "user",
          content: images.length > 0 ? [{ type: "text", text }, ...images] : text,
          timestamp: run.now(),
          pinned: true,
        };
        // Anything else in the queue (custom messages) keeps its place after the interrupt.
        const others = messages.filter((message) => !isUser(message));
        return [
          { kind: "interrupt", message: merged },
          ...others.map((message) => ({ kind: "steering" as const, message })),
        ];
      },
    }),
  };
}

function isUser(message: AgentMessage): message is Extract<AgentMessage, { role: "user" }> {
  return (message as { role?: unknown }).role === "user";
}
