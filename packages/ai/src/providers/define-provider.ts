import { missingKeyMessage, resolveApiKey } from "../api-keys.js";
import { classifyError } from "../errors.js";
import { AssistantMessageEventStream } from "../event-stream.js";
import { AssistantMessageBuilder } from "../message-builder.js";
import type { Context, Model, StreamFunction, StreamOptions } from "../types.js";

/** What a provider writes: translate one request and its stream into calls on the builder. */
export type ProviderRun = (request: {
  model: Model;
  context: Context;
  options: StreamOptions;
  apiKey: string;
  builder: AssistantMessageBuilder;
}) => Promise<unknown>;

/**
 * Wraps a provider's run in the seam's guarantees: the stream is returned at once, a missing key
 * is an auth failure before any request, and anything the run throws ends the stream as data.
 */
export function defineProvider(run: ProviderRun): StreamFunction {
  return (model, context, options) => {
    const out = new AssistantMessageEventStream();
    const builder = new AssistantMessageBuilder(model, out);
    // Vendor clients add an abort listener to the signal they get and never remove it. A run's
    // signal outlives many calls, so each call gets its own signal, linked for its duration only.
    const outer = options.signal;
    const call = new AbortController();
    const forward = () => call.abort(outer?.reason);
    if (outer?.aborted) forward();
    else outer?.addEventListener("abort", forward, { once: true });
    const callOptions = outer ? { ...options, signal: call.signal } : options;
    const start = async () => {
      const apiKey = await resolveApiKey(model, callOptions);
      if (!apiKey) return builder.fail({ kind: "auth", message: missingKeyMessage(model) });
      return run({ model, context, options: callOptions, apiKey, builder });
    };
    start()
      .catch((error: unknown) => builder.fail(classifyError(error, callOptions.signal)))
      .finally(() => outer?.removeEventListener("abort", forward));
    return out;
  };
}
