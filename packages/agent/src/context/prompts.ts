// What the summariser is asked. A hint picks the prompt: a known name (SUMMARY_PROMPTS) or free
// text, which is added to the default work-card prompt as the caller's focus. The older part is
// sent as plain text (not as messages), so the summariser needs no tools and no pairing rules.
import { estimateTextTokens, type Message } from "@tern/ai";
import { isLlmMessage } from "../messages.js";
import type { AgentMessage } from "../types.js";

const WORK_CARD = `You maintain the work card of a long-running agent session. Older messages of the conversation are being removed from the agent's context; your card replaces them, so whatever the agent still needs must be in it.

Write the card in this shape, in plain Markdown, concise and specific (names, paths, numbers, exact error texts):

## Request
What the user asked for, including constraints and later changes of mind.
## Decisions
Choices made and why.
## Files and facts
Files read, created or changed (with what matters about each), and facts learned.
## Errors
Errors met and whether they were fixed.
## Pending
Tasks still open.
## Next step
What the agent was about to do.

Some user messages (marked pinned) stay in the context verbatim and are not shown to you; do not guess at them.
When a previous card is given, update it with the new messages: keep what still holds, change what changed, drop what is finished or no longer matters. Answer with the card only.`;

const BRIEF = `Summarise the conversation below for the agent that will continue it, in at most a few short paragraphs: the goal, what was done, what was found, and what remains. When a previous summary is given, merge the new messages into it. Answer with the summary only.`;

/** Prompts by hint name. "work-card" is the default. */
export const SUMMARY_PROMPTS: Record<string, string> = {
  "work-card": WORK_CARD,
  brief: BRIEF,
};

export function summaryPrompt(hint: string | undefined): string {
  if (hint === undefined || hint.trim() === "") return WORK_CARD;
  const named = SUMMARY_PROMPTS[hint];
  if (named) return named;
  return `${WORK_CARD}\n\nThe user asked for this compaction with a focus; follow it: ${hint.trim()}`;
}

/** Caps on what one message contributes to the summariser's input, in characters. */
const TOOL_RESULT_CHARS = 2_000;
const MESSAGE_CHARS = 8_000;

function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = Math.floor(max * 0.75);
  const tail = max - head;
  return `${text.slice(0, head)}\n[... ${(text.length - max).toLocaleString("en-US")} characters omitted ...]\n${text.slice(text.length - tail)}`;
}

function partsText(content: Message["content"]): string {
  if (typeof content === "string") return content;
  const out: string[] = [];
  for (const part of content) {
    if (part.type === "text") out.push(part.text);
    else if (part.type === "image") out.push("[image]");
  }
  return out.join("\n");
}

/** One message as a line of the transcript the summariser reads. */
export function renderMessage(message: AgentMessage): string | undefined {
  if (!isLlmMessage(message)) return undefined;
  if (message.role === "user") return `[user]\n${clip(partsText(message.content), MESSAGE_CHARS)}`;
  if (message.role === "toolResult") {
    const label = `[tool result: ${message.toolName}${message.isError ? ", error" : ""}]`;
    return `${label}\n${clip(partsText(message.content), TOOL_RESULT_CHARS)}`;
  }
  const lines: string[] = [];
  for (const part of message.content) {
    if (part.type === "text" && part.text.trim() !== "") lines.push(clip(part.text, MESSAGE_CHARS));
    else if (part.type === "toolCall")
      lines.push(`[tool call: ${part.name}] ${clip(JSON.stringify(part.arguments), TOOL_RESULT_CHARS)}`);
  }
  if (message.stopReason === "error" && message.errorMessage)
    lines.push(`[model error] ${message.errorMessage}`);
  return lines.length > 0 ? `[assistant]\n${lines.join("\n")}` : undefined;
}

/**
 * The summariser's user message: the previous card (if any), then the messages to fold in, newest
 * kept when the whole does not fit `maxTokens` (the previous card already holds the oldest part).
 */
export function summaryInput(
  older: readonly AgentMessage[],
  previous: string | undefined,
  maxTokens: number,
): string {
  const head = previous
    ? `<previous-card>\n${previous}\n</previous-card>\n\nUpdate the card with these newer messages:\n\n`
    : "Write the card for these messages:\n\n";
  let room = maxTokens - estimateTextTokens(head) - 16;
  const blocks: string[] = [];
  let omitted = 0;
  for (let i = older.length - 1; i >= 0; i--) {
    const block = renderMessage(older[i]!);
    if (block === undefined) continue;
    const cost = estimateTextTokens(block) + 2;
    if (cost > room) {
      omitted = i + 1;
      break;
    }
    room -= cost;
    blocks.push(block);
  }
  blocks.reverse();
  const note = omitted > 0 ? `[${omitted} earlier messages omitted: they did not fit]\n\n` : "";
  return `${head}<conversation>\n${note}${blocks.join("\n\n")}\n</conversation>`;
}
