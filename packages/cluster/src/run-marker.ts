// Where a run stands in its session, read from the session itself. Before the prompt is sent a
// `tern.run` custom entry records the run id and the event seq at that moment; a worker taking
// the run over reads it back: no marker -> the run never started; a marker but no user message
// after it -> the prompt was never persisted; an agent_end after the marker's seq -> the run
// finished and only its completion (or its mirroring) was lost; a transcript that ends in the
// final answer without that agent_end -> the run is over but its end was never told (run-end.ts);
// otherwise the run is continued after crash repair.
import type { AssistantMessage, Message } from "@tern/ai";
import type { Session } from "@tern/session";

export const RUN_MARKER = "tern.run";

export type RunProgress = "not_started" | "prompt_missing" | "finished" | "answered" | "interrupted";

interface MarkerData {
  runId: string;
  eventSeq: number;
}

/** The run's marker: its entry's place, the event seq before the run, and when it was written. */
export interface RunStart {
  index: number;
  eventSeq: number;
  timestamp: number;
}

export function markRun(session: Session, runId: string): void {
  const data: MarkerData = { runId, eventSeq: session.lastEventSeq };
  session.appendCustom(RUN_MARKER, data);
}

export function runStart(session: Session, runId: string): RunStart | undefined {
  const entries = session.entries();
  const index = entries.findIndex(
    (entry) =>
      entry.type === "custom" &&
      entry.customType === RUN_MARKER &&
      (entry.data as MarkerData | undefined)?.runId === runId,
  );
  if (index < 0) return undefined;
  const entry = entries[index] as { data?: MarkerData; timestamp: string };
  return { index, eventSeq: entry.data?.eventSeq ?? 0, timestamp: Date.parse(entry.timestamp) || 0 };
}

export function runProgress(session: Session, runId: string): RunProgress {
  const start = runStart(session, runId);
  if (!start) return "not_started";
  const prompted = session
    .entries()
    .slice(start.index + 1)
    .some((entry) => entry.type === "message" && entry.message.role === "user");
  if (!prompted) return "prompt_missing";
  const ended = session
    .storedEvents()
    .some((entry) => entry.seq > start.eventSeq && entry.event.type === "agent_end");
  if (ended) return "finished";
  return finalAnswer(session, start) ? "answered" : "interrupted";
}

/** The run's final answer when its transcript ends in one after the prompt, else undefined. */
export function finalAnswer(
  session: Session,
  start: RunStart,
): { id: string; message: AssistantMessage } | undefined {
  const last = runMessages(session, start).at(-1);
  if (last?.message.role !== "assistant") return undefined;
  const message = last.message as AssistantMessage;
  return message.content.some((part) => part.type === "toolCall") ? undefined : { id: last.id, message };
}

/** The model's messages of the run: those after its marker, in order. */
export function runMessages(session: Session, start: RunStart): { id: string; message: Message }[] {
  return session
    .entries()
    .slice(start.index + 1)
    .flatMap((entry) => {
      if (entry.type !== "message") return [];
      const role = (entry.message as { role?: unknown }).role;
      return role === "user" || role === "assistant" || role === "toolResult"
        ? [{ id: entry.id, message: entry.message }]
        : [];
    });
}
