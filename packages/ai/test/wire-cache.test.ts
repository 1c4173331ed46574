import { describe, expect, it } from "vitest";
import { buildAnthropicRequest } from "../src/providers/anthropic-messages-request.js";
import { buildCompletionsRequest } from "../src/providers/openai-completions-request.js";
import { buildResponsesRequest } from "../src/providers/openai-responses-request.js";
import { prepareReplay } from "../src/replay.js";
import type { AssistantMessage, Message, Model, ToolResultMessage } from "../src/types.js";
import { emptyUsage } from "../src/usage.js";

// Incremental requests: a message's wire form is built on the turn it first travels and reused
// (the same object) on every later turn, for each provider.

const model = (api: Model["api"]): Model => ({
  id: "m",
  name: "m",
  api,
  provider: "test",
  baseUrl: "http://127.0.0.1:1/v1",
  contextWindow: 100_000,
  maxOutputTokens: 1_000,
  abilities: { toolCall: true, jsonMode: true, reasoning: false, images: false },
  prices: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
});

function turn(n: number, api: Model["api"]): Message[] {
  const call: AssistantMessage = {
    role: "assistant",
    content: [{ type: "toolCall", id: `c${n}`, name: "read", arguments: { path: `f${n}.txt` } }],
    api,
    provider: "test",
    model: "m",
    usage: emptyUsage(),
    stopReason: "toolUse",
    timestamp: n,
  };
  const result: ToolResultMessage = {
    role: "toolResult",
    toolCallId: `c${n}`,
    toolName: "read",
    content: [{ type: "text", text: `contents ${n}` }],
    isError: false,
    timestamp: n,
  };
  return [call, result];
}

describe("incremental requests", () => {
  const builders = {
    "openai-completions": (m: Model, messages: Message[]) =>
      buildCompletionsRequest(m, { messages }, {}).messages,
    "openai-responses": (m: Model, messages: Message[]) =>
      buildResponsesRequest(m, { messages }, {}).input as unknown[],
    "anthropic-messages": (m: Model, messages: Message[]) =>
      buildAnthropicRequest(m, { messages }, {}).messages.map((message) => message.content),
  };
  for (const [api, build] of Object.entries(builders)) {
    it(`${api}: earlier messages keep their wire objects as the transcript grows`, () => {
      const m = model(api as Model["api"]);
      const messages: Message[] = [{ role: "user", content: "go", timestamp: 0 }, ...turn(1, m.api)];
      const first = build(m, messages) as unknown[];
      messages.push(...turn(2, m.api));
      const second = build(m, messages) as unknown[];
      expect(second.length).toBeGreaterThan(first.length);
      // Anthropic groups results into a fresh user message per turn; its blocks are the cached part.
      const same = api === "anthropic-messages" ? 2 : first.length;
      for (let i = 0; i < same; i++) expect(second[i]).toBe(first[i]);
      expect(JSON.stringify(second)).toContain("f2.txt");
    });
  }

  it("a message from another model is stripped once, then reused", () => {
    const [call] = turn(1, "openai-responses");
    const messages: Message[] = [{ role: "user", content: "go", timestamp: 0 }, call!];
    const first = prepareReplay(messages, model("openai-completions"));
    const second = prepareReplay(messages, model("openai-completions"));
    expect(first[1]).not.toBe(call);
    expect(second[1]).toBe(first[1]);
  });
});
