// A structuredCall whose every model call shows as model_call_start/end with a purpose
// ("tool_selection", "plan", "analyze", "route"), so auxiliary calls are visible and their usage
// counts like the loop's.
// structuredCall reports calls through synchronous hooks; the events are chained and flushed
// before the value is returned, so they stay in order.

import {
  type AssistantMessage,
  type Context,
  type JsonSchema,
  type Model,
  type StreamFunction,
  type StreamOptions,
  type StructuredResult,
  structuredCall,
} from "@tern/ai";
import type { AgentEvent } from "./types.js";

/** What the call needs from its run: where events go, the clock, ids and the model seam. */
export interface VisibleCallEnv {
  emit(event: AgentEvent): Promise<void>;
  now(): number;
  ids(): string;
  streamFn: StreamFunction;
  streamOptions: Omit<StreamOptions, "signal">;
  signal: AbortSignal;
}

export async function visibleStructuredCall<T>(
  env: VisibleCallEnv,
  model: Model,
  context: Context,
  spec: { schema: JsonSchema; name: string; purpose: string },
): Promise<StructuredResult<T>> {
  let chain: Promise<void> = Promise.resolve();
  const send = (event: AgentEvent) => {
    chain = chain.then(() => env.emit(event));
  };
  let callId = "";
  try {
    return await structuredCall<T>(model, context, {
      ...env.streamOptions,
      signal: env.signal,
      schema: spec.schema,
      name: spec.name,
      streamFn: env.streamFn,
      onCallStart: () => {
        callId = env.ids();
        send({
          type: "model_call_start",
          callId,
          purpose: spec.purpose,
          model: model.id,
          provider: model.provider,
          timestamp: env.now(),
        });
      },
      onCall: ({ message, durationMs }) => send(callEnd(callId, spec.purpose, message, durationMs)),
    });
  } finally {
    await chain;
  }
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
