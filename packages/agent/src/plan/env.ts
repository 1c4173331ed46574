// What every part of a plan run shares: the event sink (which sums usage), the clock, ids, the
// model seam and the stream options. One object so the planner, executor, analyzer and router
// take one argument instead of six.

import {
  type AssistantMessage,
  addUsageInto,
  emptyUsage,
  type StreamFunction,
  type StreamOptions,
  stream,
  type Usage,
} from "@tern/ai";
import type { AgentEvent, AgentEventSink } from "../types.js";

export interface PlanEnv {
  emit(event: AgentEvent): Promise<void>;
  now(): number;
  ids(): string;
  streamFn: StreamFunction;
  streamOptions: Omit<StreamOptions, "signal" | "reasoning">;
  signal: AbortSignal;
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

/** The `model_call_end` fields of a finished call. */
export function callEnd(
  callId: string,
  purpose: string,
  message: AssistantMessage,
  durationMs: number,
): Extract<AgentEvent, { type: "model_call_end" }> {
  const end: Extract<AgentEvent, { type: "model_call_end" }> = {
    type: "model_call_end",
    callId,
    purpose,
    model: message.model,
    provider: message.provider,
    usage: message.usage,
    durationMs,
    stopReason: message.stopReason,
  };
  if (message.errorMessage !== undefined) end.errorMessage = message.errorMessage;
  return end;
}
