// A structuredCall whose every model call shows as model_call_start/end with a purpose
// ("tool_selection", "plan", "analyze", "route"), so auxiliary calls are visible and their usage
// counts like the loop's.
// structuredCall reports calls through synchronous hooks; the events are chained and flushed
// before the value is returned, so they stay in order.

import { type Context, type JsonSchema, type Model, type StructuredResult, structuredCall } from "@tern/ai";
import { modelCallEnd, modelCallStart } from "./model-call.js";
import type { RunEnv } from "./run-env.js";
import type { AgentEvent } from "./types.js";

/** What the call reads of its run: where events go, the clock, ids, the model seam and signal. */
export type VisibleCallEnv = Pick<RunEnv, "emit" | "now" | "ids" | "streamFn" | "streamOptions" | "signal">;

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
        send(modelCallStart(callId, spec.purpose, model, env.now()));
      },
      onCall: ({ message, durationMs }) =>
        send(modelCallEnd(callId, spec.purpose, model, message, durationMs)),
    });
  } finally {
    await chain;
  }
}
