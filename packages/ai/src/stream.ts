import { AssistantMessageEventStream } from "./event-stream.js";
import { AssistantMessageBuilder } from "./message-builder.js";
import { withRetry } from "./retry.js";
import type { Api, AssistantMessage, Context, Model, StreamFunction, StreamOptions } from "./types.js";

const providers = new Map<string, StreamFunction>();

/** Makes `stream()` route models whose `api` is `api` to `fn`. Built-in providers register themselves. */
export function registerProvider(api: Api | (string & {}), fn: StreamFunction): void {
  providers.set(api, fn);
}

export function registeredApis(): string[] {
  return [...providers.keys()];
}

/**
 * Streams one model response. Never throws: every failure, including an unknown api, ends the
 * stream with an `error` event whose message keeps the partial content. Retries transient
 * failures that happen before any output.
 */
export function stream(
  model: Model,
  context: Context,
  options: StreamOptions = {},
): AssistantMessageEventStream {
  const provider = providers.get(model.api);
  if (!provider) {
    const out = new AssistantMessageEventStream();
    new AssistantMessageBuilder(model, out).fail({
      kind: "invalid_request",
      message: `No provider for api "${model.api}" (model ${model.id}); known: ${registeredApis().join(", ")}`,
    });
    return out;
  }
  return withRetry(() => provider(model, context, options), options.retry, options.signal);
}

/** The drained form of `stream()`: resolves with the final assistant message, never rejects. */
export function complete(
  model: Model,
  context: Context,
  options: StreamOptions = {},
): Promise<AssistantMessage> {
  return stream(model, context, options).result();
}
