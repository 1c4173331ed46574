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
    const start = async () => {
      const apiKey = await resolveApiKey(model, options);
      if (!apiKey) return builder.fail({ kind: "auth", message: missingKeyMessage(model) });
      return run({ model, context, options, apiKey, builder });
    };
    start().catch((error: unknown) => builder.fail(classifyError(error, options.signal)));
    return out;
  };
}
