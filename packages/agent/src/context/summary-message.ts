// The message a compaction leaves in place of what it dropped: a user message whose text starts
// with COMPACTION_PREFIX and which carries `compaction: true`. The prefix is the one @tern/session
// frames a stored summary with, so a summary rebuilt from a session is recognised too.
import type { TextContent, UserMessage } from "@tern/ai";
import type { AgentMessage } from "../types.js";

export const COMPACTION_PREFIX = "The conversation before this point was compacted into this summary:\n\n";

/** A user message holding a compaction summary. `compaction` is ignored by providers. */
export type CompactionSummaryMessage = UserMessage & { compaction: true };

export function summaryMessage(summary: string, timestamp: number): CompactionSummaryMessage {
  return {
    role: "user",
    content: [{ type: "text", text: COMPACTION_PREFIX + summary }],
    timestamp,
    compaction: true,
  };
}

function firstText(message: AgentMessage): string | undefined {
  if ((message as { role?: unknown }).role !== "user") return undefined;
  const content = (message as UserMessage).content;
  if (typeof content === "string") return content;
  return content.find((part): part is TextContent => part.type === "text")?.text;
}

export function isCompactionSummary(message: AgentMessage): boolean {
  if ((message as { compaction?: unknown }).compaction === true) return true;
  return firstText(message)?.startsWith(COMPACTION_PREFIX) ?? false;
}

/** The summary text of a compaction message (the card to update next time). */
export function summaryText(message: AgentMessage): string {
  const text = firstText(message) ?? "";
  return text.startsWith(COMPACTION_PREFIX) ? text.slice(COMPACTION_PREFIX.length) : text;
}
