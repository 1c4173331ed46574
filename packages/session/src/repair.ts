// Crash repair. A process that dies mid-run leaves the path's tail open: tool calls without
// results, or a user message or tool results still waiting for the model. Repair only appends:
// each dangling call gets an error result, after which `agentLoopContinue` can take the run on.
import type { AssistantMessage, Message, ToolResultMessage } from "@tern/ai";
import type { Session } from "./session.js";

export const INTERRUPTED_RESULT = "interrupted: the process stopped before this tool finished";

export type InterruptionKind =
  /** The model asked for tools and some never returned. */
  | "dangling_tool_calls"
  /** Tool results are in, the model was never asked about them. */
  | "unanswered_tool_results"
  /** The user spoke, the model never answered. */
  | "unanswered_user_message";

export interface Interruption {
  kind: InterruptionKind;
  /** The assistant message whose calls are dangling (for dangling_tool_calls). */
  assistant?: AssistantMessage;
  /** Calls without a result, in call order. */
  danglingCalls: { id: string; name: string }[];
}

export interface RepairReport {
  interruption?: Interruption;
  /** The tool results appended, in call order. */
  appended: ToolResultMessage[];
  /** Whether the run should go on with `agentLoopContinue` (the last message awaits the model). */
  needsContinue: boolean;
}

/**
 * Finds an interrupted run at the end of the current path. The event log decides when it has
 * one: a run whose `agent_end` was persisted finished, whatever its last message looks like
 * (e.g. a terminating tool batch ends on tool results). Without events the transcript decides.
 */
export function detectInterruption(session: Session): Interruption | undefined {
  if (lastRunEnded(session)) return undefined;
  // Custom agent messages (notes, bookmarks) are not part of the model's conversation.
  const messages = session.buildContext().messages.filter(isLlmMessage);
  const last = messages.at(-1);
  if (!last || last.role === "assistant") {
    const dangling = last ? danglingCalls(last, []) : [];
    if (!last || dangling.length === 0) return undefined;
    return { kind: "dangling_tool_calls", assistant: last, danglingCalls: dangling };
  }
  if (last.role === "user") return { kind: "unanswered_user_message", danglingCalls: [] };
  // Tool results at the end: some calls of their assistant message may still lack one.
  const results: ToolResultMessage[] = [];
  let i = messages.length - 1;
  for (; i >= 0 && messages[i]!.role === "toolResult"; i--) results.push(messages[i] as ToolResultMessage);
  const assistant = messages[i];
  if (assistant?.role === "assistant") {
    const dangling = danglingCalls(assistant, results);
    if (dangling.length > 0) return { kind: "dangling_tool_calls", assistant, danglingCalls: dangling };
  }
  return { kind: "unanswered_tool_results", danglingCalls: [] };
}

/** Detects and repairs by appending an error result for each dangling call; flushes what it wrote. */
export async function repairSession(session: Session, now: () => number = Date.now): Promise<RepairReport> {
  const interruption = detectInterruption(session);
  if (!interruption) return { appended: [], needsContinue: false };
  const appended: ToolResultMessage[] = [];
  for (const call of interruption.danglingCalls) {
    const result: ToolResultMessage = {
      role: "toolResult",
      toolCallId: call.id,
      toolName: call.name,
      content: [{ type: "text", text: INTERRUPTED_RESULT }],
      isError: true,
      timestamp: now(),
    };
    session.appendMessage(result);
    appended.push(result);
  }
  if (appended.length > 0) await session.flush();
  return { interruption, appended, needsContinue: true };
}

function danglingCalls(message: Message, results: ToolResultMessage[]): { id: string; name: string }[] {
  if (message.role !== "assistant") return [];
  const answered = new Set(results.map((result) => result.toolCallId));
  return message.content.flatMap((part) =>
    part.type === "toolCall" && !answered.has(part.id) ? [{ id: part.id, name: part.name }] : [],
  );
}

function lastRunEnded(session: Session): boolean {
  // Scan back from the newest event to the newest run boundary.
  const log = session.storedEvents();
  for (let i = log.length - 1; i >= 0; i--) {
    const type = log[i]!.event.type;
    if (type === "agent_end") return true;
    if (type === "agent_start") return false;
  }
  return false;
}

function isLlmMessage(message: Message): boolean {
  const role = (message as { role?: unknown }).role;
  return role === "user" || role === "assistant" || role === "toolResult";
}
