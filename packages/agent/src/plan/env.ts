// What every part of a plan run shares: the event sink (which sums usage), the clock, ids, the
// model seam and the stream options. One object so the planner, executor, analyzer and router
// take one argument instead of six.

import {
  addUsageInto,
  emptyUsage,
  type StreamFunction,
  type StreamOptions,
  stream,
  type Usage,
} from "@tern/ai";
import type { AgentEventSink } from "../types.js";
import type { VisibleCallEnv } from "../visible-structured-call.js";

export interface PlanEnv extends VisibleCallEnv {
  /** Every model call's usage so far (summed from `model_call_end`). */
  readonly usage: Usage;
}

export function planEnv(
  sink: AgentEventSink,
  signal: AbortSignal,
  parts: {
    now?: () => number;
    ids?: () => string;
    streamFn?: StreamFunction;
    streamOptions?: Omit<StreamOptions, "signal" | "reasoning">;
  },
): PlanEnv {
  const usage = emptyUsage();
  return {
    usage,
    signal,
    now: parts.now ?? Date.now,
    ids: parts.ids ?? (() => crypto.randomUUID()),
    streamFn: parts.streamFn ?? stream,
    streamOptions: parts.streamOptions ?? {},
    async emit(event) {
      if (event.type === "model_call_end") addUsageInto(usage, event.usage);
      try {
        await sink(event);
      } catch {
        // A consumer that throws must not break the plan (the loop's RunEvents does the same).
      }
    },
  };
}
