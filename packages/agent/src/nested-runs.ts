// Where each event of a run's stream sits among its nested runs: a sub-agent's events carry the
// id of the `task` call that started it (`parentToolCallId`), a plan step's tool events carry
// the step's id (`stepId`), and deeper sub-agents keep their own call's id. From those marks and
// the tool calls seen so far this fold tells, for every event, the sub-agent and step that made
// it, the top-level tool call it folds under and how deep it is, so that every renderer and
// mapper collapses nested runs the same way instead of walking the marks itself.

import type { AgentEvent } from "./events.js";
import { stepPurpose } from "./plan/events.js";

export interface NestedPlace {
  /** The `task` call whose sub-agent made the event (the event's own mark). */
  parentToolCallId?: string;
  /** The outermost `task` call above the event, one the run (or a step) made itself. */
  rootToolCallId?: string;
  /** The plan step whose run made the event, its sub-agents' events included. */
  stepId?: string;
  /** That step's round, once its `plan_step_start` was seen. */
  round?: number;
  /** 0 for the run's own events; one more for a plan step and for each sub-agent level. */
  depth: number;
}

/** One fold per stream: feed it every event, in order. */
export class NestedRuns {
  /** A tool call a sub-agent made → the `task` call that sub-agent runs under. */
  private readonly owner = new Map<string, string>();
  /** A tool call a plan step made itself → that step. */
  private readonly stepOfCall = new Map<string, string>();
  /** Each plan step seen in this run → its latest round. */
  private readonly rounds = new Map<string, number>();

  /**
   * Where the event sits (any event of a stream: a server's own events never nest); then learns
   * what later events need (its tool call, its step). A nested run's brackets sit inside it:
   * `subagent_start/end` at the sub-agent's depth, `plan_step_*` at the step's.
   */
  place(event: AgentEvent | { type: string }): NestedPlace {
    if (event.type === "plan_step_start") {
      const { stepId, round } = event as Extract<AgentEvent, { type: "plan_step_start" }>;
      this.rounds.set(stepId, round);
    }
    const parent = mark(event, "parentToolCallId");
    const root = parent === undefined ? undefined : this.root(parent);
    const stepId =
      mark(event, "stepId") ?? (root !== undefined ? this.stepOfCall.get(root) : this.stepOfModelCall(event));
    const round = stepId === undefined ? undefined : this.rounds.get(stepId);
    const depth = (parent === undefined ? 0 : this.levels(parent)) + (stepId === undefined ? 0 : 1);
    const place: NestedPlace = { depth };
    if (parent !== undefined) place.parentToolCallId = parent;
    if (root !== undefined) place.rootToolCallId = root;
    if (stepId !== undefined) place.stepId = stepId;
    if (round !== undefined) place.round = round;
    this.learn(event as AgentEvent, parent, stepId);
    return place;
  }

  private learn(event: AgentEvent, parent: string | undefined, stepId: string | undefined): void {
    switch (event.type) {
      case "tool_execution_start":
        if (parent !== undefined) this.owner.set(event.toolCallId, parent);
        else if (stepId !== undefined) this.stepOfCall.set(event.toolCallId, stepId);
        return;
      case "tool_execution_end":
        this.owner.delete(event.toolCallId);
        this.stepOfCall.delete(event.toolCallId);
        return;
      case "agent_end":
        if (parent !== undefined) return;
        this.owner.clear();
        this.stepOfCall.clear();
        this.rounds.clear();
        return;
    }
  }

  private root(callId: string): string {
    let id = callId;
    for (let up = this.owner.get(id); up !== undefined; up = this.owner.get(id)) id = up;
    return id;
  }

  /** Sub-agent levels above an event marked with `callId`: 1 when that call is the run's own. */
  private levels(callId: string): number {
    let levels = 1;
    for (let up = this.owner.get(callId); up !== undefined; up = this.owner.get(up)) levels++;
    return levels;
  }

  /** A step's own model calls carry no mark: their purpose names the step (`step:<id>[:<job>]`). */
  private stepOfModelCall(event: { type: string }): string | undefined {
    if (!isModelCallEvent(event)) return undefined;
    let found: string | undefined;
    for (const stepId of this.rounds.keys()) {
      const purpose = stepPurpose(stepId);
      const names = event.purpose === purpose || event.purpose.startsWith(`${purpose}:`);
      // Ids may hold ':': "step:a:b" is step "a:b" when there is one, not step "a"'s job "b".
      if (names && (found === undefined || stepId.length > found.length)) found = stepId;
    }
    return found;
  }
}

function isModelCallEvent(event: {
  type: string;
}): event is Extract<AgentEvent, { type: "model_call_start" | "model_call_end" | "model_retry" }> {
  return event.type === "model_call_start" || event.type === "model_call_end" || event.type === "model_retry";
}

/**
 * A nesting mark, read off any event: a sub-agent forwards its errors and compactions marked too,
 * though only its model and tool events declare the field.
 */
function mark(event: { type: string }, field: "parentToolCallId" | "stepId"): string | undefined {
  const value = (event as { [key: string]: unknown })[field];
  return typeof value === "string" ? value : undefined;
}
