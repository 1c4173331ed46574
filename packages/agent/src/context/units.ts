// A transcript cut into units that must stay together: an assistant message with the tool results
// that answer it, or a single other message. Cuts, pins and drops work on whole units, so no tool
// call is ever separated from its result.
import { isLlmMessage } from "../messages.js";
import type { AgentMessage } from "../types.js";
import { messageTokens } from "./budget.js";

export interface Unit {
  /** Index of the unit's first message in the transcript. */
  start: number;
  /** One past its last message. */
  end: number;
  tokens: number;
  /** A message of the unit is pinned (the whole unit is then kept). */
  pinned: boolean;
}

function role(message: AgentMessage): string | undefined {
  return (message as { role?: string }).role;
}

export function isPinned(message: AgentMessage): boolean {
  return (message as { pinned?: unknown }).pinned === true;
}

/** Splits `messages` into units. Tool results directly after an assistant message belong to it. */
export function splitUnits(messages: readonly AgentMessage[]): Unit[] {
  const units: Unit[] = [];
  let i = 0;
  while (i < messages.length) {
    const start = i;
    const first = messages[i]!;
    i++;
    if (role(first) === "assistant") {
      // Results stay with their calls, and so do custom messages a UI slipped in between them
      // (convertToLlm drops those, so the model sees the results right after the calls).
      for (let j = i; j < messages.length; j++) {
        const r = role(messages[j]!);
        if (r === "toolResult") i = j + 1;
        else if (isLlmMessage(messages[j]!)) break;
      }
    }
    let tokens = 0;
    let pinned = false;
    for (let j = start; j < i; j++) {
      tokens += messageTokens(messages[j]!);
      if (isPinned(messages[j]!)) pinned = true;
    }
    units.push({ start, end: i, tokens, pinned });
  }
  return units;
}
