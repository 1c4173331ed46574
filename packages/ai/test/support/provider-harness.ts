// What the provider conformance tests share: an OpenAI-compatible model on loopback, a run that
// keeps every event, a one-message context, the usage counts without cost, and the re-chunking
// property.
import fc from "fast-check";
import type { ScriptServer } from "../../src/testing/index.js";
import type {
  AssistantEvent,
  AssistantMessage,
  Context,
  Model,
  StreamFunction,
  StreamOptions,
} from "../../src/types.js";

/** An openai-completions model served at `baseUrl` (a loopback server), priced and able to do everything. */
export function completionsModel(baseUrl: string, overrides: Partial<Model> = {}): Model {
  return {
    id: "test-model",
    name: "Test model",
    api: "openai-completions",
    provider: "openai",
    baseUrl: `${baseUrl}/v1`,
    contextWindow: 128_000,
    maxOutputTokens: 4_096,
    abilities: { toolCall: true, jsonMode: true, reasoning: false, images: true },
    prices: { input: 1, output: 2, cacheRead: 0.5, cacheWrite: 0 },
    ...overrides,
  };
}

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

/**
 * Serves `body` split at random byte offsets (fast-check picks them) and checks each split with
 * `check`: a provider must assemble the same message whatever the network's chunking.
 */
export async function atAnyByteBoundaries(
  server: ScriptServer,
  body: string,
  check: () => Promise<void>,
  numRuns = 15,
): Promise<void> {
  const size = Buffer.byteLength(body);
  await fc.assert(
    fc.asyncProperty(
      fc.uniqueArray(fc.integer({ min: 1, max: size - 1 }), { minLength: 1, maxLength: 40 }),
      async (chunks) => {
        server.push({ kind: "sse", body, chunks });
        await check();
      },
    ),
    { numRuns },
  );
}
