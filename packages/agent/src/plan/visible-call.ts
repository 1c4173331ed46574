// A structuredCall whose every model call shows as model_call_start/end with a purpose ("plan",
// "analyze", "route"), so auxiliary calls are visible and their usage counts like the loop's.
// structuredCall reports calls through synchronous hooks; the events are chained and flushed
// before the value is returned, so they stay in order.

import { type Context, type JsonSchema, type Model, type StructuredResult, structuredCall } from "@tern/ai";
import type { AgentEvent } from "../types.js";
import { callEnd, type PlanEnv } from "./env.js";

export async function visibleStructuredCall<T>(
  env: PlanEnv,
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
