// What resuming a session means. A run that crashed (no agent_end) was repaired by
// @tern/session and goes on with continue(); a run that ended interrupted (Ctrl-C) or on an error
// goes on with a short note telling the model so; a finished run has nothing to resume. A plan
// that crashed or was interrupted goes on from its event log, keeping the steps that finished.
import { type AgentEvent, type PlanCheckpoint, planCheckpoint } from "@tern/agent";
import type { Session } from "@tern/session";

export type ResumePlan =
  | { kind: "continue" }
  | { kind: "plan"; checkpoint: PlanCheckpoint }
  | { kind: "prompt"; note: string }
  | { kind: "finished" };

export function lastRunEnd(session: Session): { stopReason: string; errorMessage?: string } | undefined {
  const events = session.storedEvents();
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!.event;
    if (event.type === "agent_end")
      return {
        stopReason: String(event.stopReason),
        ...(typeof event.errorMessage === "string" ? { errorMessage: event.errorMessage } : {}),
      };
    if (event.type === "agent_start") return undefined;
  }
  return undefined;
}

export function resumePlan(session: Session, needsContinue: boolean): ResumePlan {
  const checkpoint = planCheckpoint(session.storedEvents().map((entry) => entry.event as AgentEvent));
  if (checkpoint) return { kind: "plan", checkpoint };
  if (needsContinue) return { kind: "continue" };
  const end = lastRunEnd(session);
  if (end?.stopReason === "aborted")
    return {
      kind: "prompt",
      note:
        "[tern] The user interrupted the previous run (Ctrl-C) before it finished and has now resumed it. " +
        "Continue the task from where it stopped; if a tool call was aborted and you still need its result, run it again.",
    };
  if (end?.stopReason === "error")
    return {
      kind: "prompt",
      note: `[tern] The previous run stopped on an error${end.errorMessage ? ` (${end.errorMessage})` : ""}. The user has resumed it: continue the task from where it stopped.`,
    };
  return { kind: "finished" };
}
