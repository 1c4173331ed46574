// What the provider conformance tests share: a run that keeps every event, a one-message context,
// and the usage counts without cost.
import type {
  AssistantEvent,
  AssistantMessage,
  Context,
  Model,
  StreamFunction,
  StreamOptions,
} from "../../src/types.js";

export const hello: Context = { messages: [{ role: "user", content: "hi", timestamp: 1 }] };

/** Runs `fn` to the end, keeping every event and the final message. */
export async function collect(fn: StreamFunction, model: Model, context: Context, options: StreamOptions) {
  const events: AssistantEvent[] = [];
  const s = fn(model, context, options);
  for await (const event of s) events.push(event);
  return { events, message: await s.result() };
}

export function tokens(message: AssistantMessage) {
  const { cost: _cost, ...counts } = message.usage;
  return counts;
}
