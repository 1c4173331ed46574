import { AssistantMessageEventStream } from "./event-stream.js";
import { AssistantMessageBuilder } from "./message-builder.js";
import { withRetry } from "./retry.js";
import type { Api, AssistantMessage, Context, Model, StreamFunction, StreamOptions } from "./types.js";

const providers = new Map<string, StreamFunction>();

// Built-in providers load on first use: importing @tern/ai must not pull in every vendor SDK
// (a CLI's start-up time and a child process's memory pay for each one).
const builtInLoaders: Record<string, () => Promise<StreamFunction>> = {
  "openai-completions": async () =>
    (await import("./providers/openai-completions.js")).streamOpenAICompletions,
  "openai-responses": async () => (await import("./providers/openai-responses.js")).streamOpenAIResponses,
  "anthropic-messages": async () =>
    (await import("./providers/anthropic-messages.js")).streamAnthropicMessages,
};

/** Makes `stream()` route models whose `api` is `api` to `fn`. Built-in providers register themselves. */
export function registerProvider(api: Api | (string & {}), fn: StreamFunction): void {
  providers.set(api, fn);
}

export function registeredApis(): string[] {
  return [...new Set([...providers.keys(), ...Object.keys(builtInLoaders)])];
}

/** The provider for `api`, loading a built-in one on first use; undefined when none is known. */
function providerFor(api: string): StreamFunction | undefined {
  const registered = providers.get(api);
  if (registered) return registered;
  const load = builtInLoaders[api];
  if (!load) return undefined;
  return (model, context, options) => {
    const out = new AssistantMessageEventStream();
    load().then(
      async (fn) => {
        providers.set(api, fn);
        for await (const event of fn(model, context, options)) out.push(event);
      },
      (error: unknown) =>
        new AssistantMessageBuilder(model, out).fail({
          kind: "unknown",
          message: `Could not load the ${api} provider: ${(error as Error)?.message ?? error}`,
        }),
    );
    return out;
  };
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
  const provider = providerFor(model.api);
  if (!provider) {
    const out = new AssistantMessageEventStream();
    new AssistantMessageBuilder(model, out).fail({
      kind: "invalid_request",
      message: `No provider for api "${model.api}" (model ${model.id}); known: ${registeredApis().join(", ")}`,
    });
    return out;
  }
  return withRetry(() => provider(model, context, options), options);
}

/** The drained form of `stream()`: resolves with the final assistant message, never rejects. */
export function complete(
  model: Model,
  context: Context,
  options: StreamOptions = {},
): Promise<AssistantMessage> {
  return stream(model, context, options).result();
}
