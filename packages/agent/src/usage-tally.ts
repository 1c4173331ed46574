// The one place usage is summed. Only `model_call_end` carries a call's usage; `subagent_end`,
// `plan_step_end` and `agent_end` carry totals of calls already counted, so adding them again
// would count a call twice. A tally is fed events and read as totals: a run keeps one, a plan
// step one for its calls, the Agent one for its lifetime and one per turn.

import { addUsageInto, emptyUsage, type Usage } from "@tern/ai";
import type { AgentEvent } from "./types.js";

export class UsageTally {
  /** Live sum of every call seen so far. */
  readonly total: Usage = emptyUsage();

  /** Counts the event if it ends a model call; returns the usage it added, if any. */
  add(event: AgentEvent): Usage | undefined {
    if (event.type !== "model_call_end") return undefined;
    addUsageInto(this.total, event.usage);
    return event.usage;
  }

  /** A copy of the total that later calls leave unchanged (for results and end events). */
  snapshot(): Usage {
    return addUsageInto(emptyUsage(), this.total);
  }
}
