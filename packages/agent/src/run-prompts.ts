// A run's prompts: UserPromptSubmit hooks, then pinning (the context guard keeps the original
// request verbatim), and the request text policies quote.

import type { HookFailureReporter, HookRegistry } from "./hooks.js";
import { isLlmMessage, messageText } from "./messages.js";
import type { AgentMessage } from "./types.js";

export interface SubmittedPrompts {
  messages: AgentMessage[];
  /** Set when a hook blocked a prompt. */
  blocked?: string;
}

export async function submitPrompts(
  prompts: AgentMessage[],
  hooks: HookRegistry | undefined,
  report: HookFailureReporter,
  signal: AbortSignal,
): Promise<SubmittedPrompts> {
  const messages: AgentMessage[] = [];
  for (let message of prompts) {
    if (hooks && hooks.count("UserPromptSubmit") > 0 && (message as { role?: unknown }).role === "user") {
      const user = message as Extract<AgentMessage, { role: "user" }>;
      const decision = await hooks.runUserPromptSubmit(
        { message: user, prompt: messageText(user) },
        report,
        signal,
      );
      if (decision.blocked !== undefined) return { messages: [], blocked: decision.blocked };
      message = decision.message;
    }
    // A copy: the caller's message object stays as it was.
    messages.push(isLlmMessage(message) ? { ...message, pinned: true } : message);
  }
  return { messages };
}

/** The run's request: its prompts' text, or for a continued run the last user message's. */
export function requestText(prompts: readonly AgentMessage[], context: readonly AgentMessage[]): string {
  const texts: string[] = [];
  for (const message of prompts) {
    if ((message as { role?: unknown }).role === "user") texts.push(messageText(message));
  }
  if (texts.length > 0) return texts.join("\n\n");
  for (let i = context.length - 1; i >= 0; i--) {
    if ((context[i] as { role?: unknown }).role === "user") return messageText(context[i]!);
  }
  return "";
}
