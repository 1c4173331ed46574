import {
  type AssistantEvent,
  type AssistantMessage,
  type Context,
  emptyUsage,
  type Model,
  type StreamOptions,
} from "@tern/ai";
import type { RunEnv } from "./run-env.js";
import { describeThrown } from "./tool-result.js";
import type { AgentEvent, ModelCallPurpose } from "./types.js";

/** One model call: what to send, where its events go, and which of them to emit. */
export interface ModelCallRequest {
  model: Model;
  context: Context;
  streamOptions: StreamOptions;
  /** The run's environment; `streamFn` is the seam the call goes through. */
  env: Pick<RunEnv, "streamFn" | "emit" | "now" | "ids">;
  /** What the call is for (default "turn"); auxiliary calls name theirs ("compaction", ...). */
  purpose?: ModelCallPurpose;
  /** Emit `message_start/update/end` for the reply (default true); auxiliary calls turn it off. */
  messageEvents?: boolean;
  /** Emit `message_update` events (default true when message events are on). */
  deltas?: boolean;
  /** Sees every stream event, whatever is emitted (answer synthesis forwards text deltas). */
  onEvent?: (event: AssistantEvent) => unknown;
}

/**
 * One model call, visible as `model_call_start/end` around `message_start/update/end`.
 * Never throws: a provider that throws or breaks its stream yields an assistant message with
 * stopReason "error" that keeps whatever content arrived.
 */
export async function callModel(request: ModelCallRequest): Promise<AssistantMessage> {
  const { model, context, streamOptions: options, env, purpose = "turn", messageEvents = true } = request;
  const deltas = messageEvents && request.deltas !== false;
  const callId = env.ids();
  const startedAt = env.now();
  await env.emit(modelCallStart(callId, purpose, model, startedAt));
  let partial: AssistantMessage | undefined;
  let final: AssistantMessage | undefined;
  // Retries happen inside the stream; each one becomes an event so displays can say why they wait.
  const withRetryEvents: StreamOptions = {
    ...options,
    onRetry: async (notice) => {
      await options.onRetry?.(notice);
      await env.emit({
        type: "model_retry",
        callId,
        purpose,
        model: model.id,
        provider: model.provider,
        ...notice,
      });
    },
  };
  try {
    const events = env.streamFn(model, context, withRetryEvents);
    for await (const event of events) {
      if (request.onEvent) await request.onEvent(event);
      if (event.type === "done") final = event.message;
      else if (event.type === "error") final = event.error;
      else {
        if (partial === undefined) {
          partial = event.partial;
          if (messageEvents) await env.emit({ type: "message_start", message: partial });
        }
        if (event.type !== "start" && deltas) {
          await env.emit({ type: "message_update", message: event.partial, assistantEvent: event });
        }
      }
    }
    final ??= await events.result();
  } catch (error) {
    final = failed(model, partial, `The model call failed: ${describeThrown(error)}`, env.now());
  }
  if (messageEvents) {
    if (partial === undefined) await env.emit({ type: "message_start", message: final });
    await env.emit({ type: "message_end", message: final });
  }
  await env.emit(modelCallEnd(callId, purpose, model, final, env.now() - startedAt));
  return final;
}

/** `model_call_start` for a call to `model`; every model call the loop makes opens with one. */
export function modelCallStart(
  callId: string,
  purpose: ModelCallPurpose,
  model: Model,
  timestamp: number,
): Extract<AgentEvent, { type: "model_call_start" }> {
  return { type: "model_call_start", callId, purpose, model: model.id, provider: model.provider, timestamp };
}

/** `model_call_end` for a finished call: its usage, duration, stop reason and, on failure, why. */
export function modelCallEnd(
  callId: string,
  purpose: ModelCallPurpose,
  model: Model,
  message: AssistantMessage,
  durationMs: number,
): Extract<AgentEvent, { type: "model_call_end" }> {
  const end: Extract<AgentEvent, { type: "model_call_end" }> = {
    type: "model_call_end",
    callId,
    purpose,
    model: model.id,
    provider: model.provider,
    usage: message.usage,
    durationMs,
    stopReason: message.stopReason,
  };
  if (message.errorMessage !== undefined) end.errorMessage = message.errorMessage;
  if (message.errorKind !== undefined) end.errorKind = message.errorKind;
  return end;
}

/** An assistant message standing for a turn that failed before or during its model call. */
export function failed(
  model: Model,
  partial: AssistantMessage | undefined,
  errorMessage: string,
  timestamp: number,
): AssistantMessage {
  const message: AssistantMessage = partial ?? {
    role: "assistant",
    content: [],
    api: model.api,
    provider: model.provider,
    model: model.id,
    usage: emptyUsage(),
    stopReason: "error",
    timestamp,
  };
  message.stopReason = "error";
  message.errorMessage = errorMessage;
  message.errorKind = "unknown";
  return message;
}
