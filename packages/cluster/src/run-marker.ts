// Where a run stands in its session, read from the session itself. Before the prompt is sent a
// `tern.run` custom entry records the run id and the event seq at that moment; a worker taking
// the run over reads it back: no marker -> the run never started; a marker but no user message
// after it -> the prompt was never persisted; an agent_end after the marker's seq -> the run
// finished and only its completion was lost; otherwise the run is continued after crash repair.
import type { Session } from "@tern/session";

export const RUN_MARKER = "tern.run";

export type RunProgress = "not_started" | "prompt_missing" | "finished" | "interrupted";

interface MarkerData {
  runId: string;
  eventSeq: number;
}

export function markRun(session: Session, runId: string): void {
  const data: MarkerData = { runId, eventSeq: session.lastEventSeq };
  session.appendCustom(RUN_MARKER, data);
}

export function runProgress(session: Session, runId: string): RunProgress {
  const entries = session.entries();
  const index = entries.findIndex(
    (entry) =>
      entry.type === "custom" &&
      entry.customType === RUN_MARKER &&
      (entry.data as MarkerData | undefined)?.runId === runId,
  );
  if (index < 0) return "not_started";
  const marker = (entries[index] as { data?: MarkerData }).data;
  const prompted = entries
    .slice(index + 1)
    .some((entry) => entry.type === "message" && entry.message.role === "user");
  if (!prompted) return "prompt_missing";
  const ended = session
    .storedEvents()
    .some((entry) => entry.seq > (marker?.eventSeq ?? 0) && entry.event.type === "agent_end");
  return ended ? "finished" : "interrupted";
}
