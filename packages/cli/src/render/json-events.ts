// `--json`: every canonical event as one JSON line. A pure mapping at the edge (DESIGN.md, seam 1)
// with three changes so lines stay small and safe:
// - message_update carries `assistantEvent` without its `partial` message and no `message`: the
//   deltas add up to what message_end carries whole (otherwise every line repeats the message);
// - context_update names tools instead of carrying their functions and schemas, and gives the
//   model as provider and id (a Model may carry headers with secrets);
// - agent_start also names the session the run writes to (`sessionId`), so a script can resume it;
// - errors thrown while serialising never break the stream: the event becomes a short error line.
import { type AgentEvent, contextUpdateData } from "@tern/agent";

export function eventJson(event: AgentEvent, sessionId?: string): string {
  try {
    return JSON.stringify(slim(event, sessionId));
  } catch (error) {
    return JSON.stringify({
      type: "error",
      source: "listener",
      message: `could not serialise ${event.type}: ${(error as Error).message}`,
    });
  }
}

function slim(event: AgentEvent, sessionId: string | undefined): unknown {
  if (event.type === "agent_start" && sessionId !== undefined) return { ...event, sessionId };
  if (event.type === "message_update") {
    const { partial: _partial, ...assistantEvent } = event.assistantEvent as typeof event.assistantEvent & {
      partial?: unknown;
    };
    return { type: "message_update", assistantEvent };
  }
  if (event.type === "context_update") return contextUpdateData(event);
  return event;
}
