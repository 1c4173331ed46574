// The end a run still owes its streams. A holder killed after the final answer was saved but
// before the answer's events were (its `message_end`, the `turn_end`, the run's `agent_end`)
// leaves a transcript that is finished and an event log that is not: nobody would ever tell a
// client the run ended. The worker that takes the run over appends exactly the events that are
// missing, in order, to the session's own log. The log numbers them after the newest durable
// event, and the mirror copies by (session, seq), so a republish can neither skip nor repeat one.
import type { AgentStopReason } from "@tern/agent";
import { type AssistantMessage, addUsage } from "@tern/ai";
import type { EventEntry, PersistedEvent, Session } from "@tern/session";
import { finalAnswer, type RunStart, runMessages, runStart } from "./run-marker.js";

/**
 * Appends the events the run's end still lacks (message_start and message_end of the answer,
 * turn_end, agent_end) and returns how many. Call it only when the run has no agent_end yet and
 * `finalAnswer` found its answer; the caller flushes and mirrors.
 */
export function closeRun(session: Session, runId: string): number {
  const start = runStart(session, runId);
  const answer = start && finalAnswer(session, start);
  if (!start || !answer) return 0;
  const events = session.storedEvents().filter((entry) => entry.seq > start.eventSeq);
  const about = (type: string) => events.some((e) => e.event.type === type && refersTo(e, answer));
  const owed: PersistedEvent[] = [];
  if (!about("message_start")) owed.push({ type: "message_start", message: answer.message });
  if (!about("message_end")) owed.push({ type: "message_end", message: answer.message });
  if (!about("turn_end"))
    owed.push({ type: "turn_end", turn: lastTurn(events), message: answer.message, toolResults: [] });
  owed.push(endOf(session, start, answer.message));
  for (const event of owed) session.appendEvent(event);
  return owed.length;
}

/** The agent_end the run would have sent: its messages, answer, usage and turns, from the transcript. */
function endOf(session: Session, start: RunStart, answer: AssistantMessage): PersistedEvent {
  const messages = runMessages(session, start).map((entry) => entry.message);
  const assistants = messages.filter((m): m is AssistantMessage => m.role === "assistant");
  const stopReason: AgentStopReason =
    answer.stopReason === "length" || answer.stopReason === "error" || answer.stopReason === "aborted"
      ? answer.stopReason
      : "stop";
  return {
    type: "agent_end",
    messages,
    answer: answer.content.map((part) => (part.type === "text" ? part.text : "")).join(""),
    usage: addUsage(...assistants.map((m) => m.usage)),
    iterations: assistants.length,
    elapsedMs: Math.max(0, answer.timestamp - start.timestamp),
    stopReason,
    ...(answer.errorMessage !== undefined ? { errorMessage: answer.errorMessage } : {}),
  };
}

/** Events name a message by its entry (`{"$entry": id}`) once it is in the tree. */
function refersTo(entry: EventEntry, answer: { id: string; message: AssistantMessage }): boolean {
  const message = (entry.event as { message?: { $entry?: unknown; timestamp?: unknown } }).message;
  return message?.$entry === answer.id || message?.timestamp === answer.message.timestamp;
}

function lastTurn(events: readonly EventEntry[]): number {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!.event as { type: string; turn?: unknown };
    if (event.type === "turn_start" && typeof event.turn === "number") return event.turn;
  }
  return 0;
}
