import { afterEach, describe, expect, it } from "vitest";
import { streamAnthropicMessages } from "../src/providers/anthropic-messages.js";
import { sanitizeToolId } from "../src/providers/anthropic-messages-request.js";
import { type ScriptServer, serveScript, typedSse } from "../src/testing/index.js";
import type { AssistantMessage, Context, Model, StreamOptions } from "../src/types.js";
import { emptyUsage } from "../src/usage.js";
import { fixtureLines } from "./support/fixtures.js";
import { atAnyByteBoundaries, collect, hello, tokens } from "./support/provider-harness.js";

const DIR = "anthropic-messages/";

let server: ScriptServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function model(baseUrl: string, overrides: Partial<Model> = {}): Model {
  return {
    // Not a real id: the client prints deprecation warnings for some real ones.
    id: "claude-test",
    name: "Claude test",
    api: "anthropic-messages",
    provider: "anthropic",
    baseUrl,
    contextWindow: 200_000,
    maxOutputTokens: 8000,
    abilities: { toolCall: true, jsonMode: false, reasoning: true, images: true },
    prices: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    ...overrides,
  };
}

const run = (m: Model, context: Context = hello, options: StreamOptions = { apiKey: "sk-ant-test" }) =>
  collect(streamAnthropicMessages, m, context, options);

async function serve(body: string, extra: { chunks?: number[]; cutAfter?: number; delayMs?: number } = {}) {
  server = await serveScript([{ kind: "sse", body, ...extra }]);
  return run(model(server.baseUrl));
}

function fixture(name: string): string {
  return typedSse(fixtureLines(`${DIR}${name}.chunks.txt`));
}

/** SSE with `event:` lines from plain event objects. */
function sse(events: object[]): string {
  return typedSse(events.map((event) => JSON.stringify(event)));
}

const start = (usage: object = { input_tokens: 10, output_tokens: 1 }) => ({
  type: "message_start",
  message: { id: "msg_t", type: "message", role: "assistant", model: "claude-test", content: [], usage },
});
const textBlock = (index: number, ...texts: string[]) => [
  { type: "content_block_start", index, content_block: { type: "text", text: "" } },
  ...texts.map((text) => ({ type: "content_block_delta", index, delta: { type: "text_delta", text } })),
];
const stopBlock = (index: number) => ({ type: "content_block_stop", index });
const end = (stop_reason: string, usage: object = { output_tokens: 5 }) => [
  { type: "message_delta", delta: { stop_reason, stop_sequence: null }, usage },
  { type: "message_stop" },
];

describe("anthropic-messages conformance (captured streams)", () => {
  it("anthropic-text: text with pings", async () => {
    const { message } = await serve(fixture("anthropic-text"));
    expect(message.content).toEqual([
      {
        type: "text",
        text: "Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?",
      },
    ]);
    expect(message.stopReason).toBe("stop");
    expect(message.responseId).toBe("msg_01QC4g3HwBThD4BaNtBckFDJ");
    expect(tokens(message)).toEqual({ input: 12, output: 30, cacheRead: 0, cacheWrite: 0, totalTokens: 42 });
    // $3/M input, $15/M output.
    expect(message.usage.cost.total).toBeCloseTo(0.000036 + 0.00045, 12);
  });

  it("anthropic-clear-thinking.1: thinking with signature, then text", async () => {
    const { message } = await serve(fixture("anthropic-clear-thinking.1"));
    expect(message.content).toEqual([
      {
        type: "thinking",
        thinking: "The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185",
        signature:
          "EvQBCkYICxgCKkAxhD4NUKFzudtZ6NzbZdEiBACIScTzqjPViM596iWLZIk4EFKYYBj3B6Ptl3b0dcQv/VeJBNbejNWIWRBn+KPNEgz6HWtKx7p+QRgKsEoaDGjsiqfht7gTRFYHiyIwD1VSmNqHxv3wy8KEMP+LYb/TC4UH3H97tuoaADARFFcA0phdfxnzKQxFnc9lwY+dKlzUsaKSUAFeu1bDL5ikZJ1vL0Fkz6JjoFke0L/wOJRIUDUlDUOFJ1tZ3ea7g6LGE/5hwuvWgLwewdcm64d+43l7F57XrOmqNd6flI2K/oPr/4yzNgvi/EhT6Ca17BgB",
      },
      { type: "text", text: "925 ÷ 5 = 185" },
    ]);
    expect(message.stopReason).toBe("stop");
    expect(tokens(message)).toEqual({ input: 69, output: 53, cacheRead: 0, cacheWrite: 0, totalTokens: 122 });
  });

  it("anthropic-json-tool.2: text, then tool input in pieces with pings between", async () => {
    const { message } = await serve(fixture("anthropic-json-tool.2"));
    expect(message.content).toEqual([
      { type: "text", text: "I'll invoke the JSON response tool." },
      {
        type: "toolCall",
        id: "toolu_01KFbKqPYSuAKujiL6mTfzYA",
        name: "json",
        arguments: { elements: [{ location: "San Francisco", temperature: 58, condition: "sunny" }] },
      },
    ]);
    expect(message.stopReason).toBe("toolUse");
    expect(message.responseId).toBe("msg_01K2JbSUMYhez5RHoK9ZCj9U");
    expect(tokens(message)).toEqual({
      input: 849,
      output: 47,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 896,
    });
  });

  it("anthropic-tool-no-args: an empty input stream means {}", async () => {
    const { message } = await serve(fixture("anthropic-tool-no-args"));
    expect(message.content).toEqual([
      { type: "text", text: "I'll update the issue list for you." },
      { type: "toolCall", id: "toolu_01QE1WLsSVp5hy5Q3GmGTmjP", name: "updateIssueList", arguments: {} },
    ]);
    expect(message.stopReason).toBe("toolUse");
    expect(tokens(message)).toEqual({
      input: 565,
      output: 48,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 613,
    });
  });
});

describe("anthropic-messages re-chunked captures (property)", () => {
  it.each([
    "anthropic-text",
    "anthropic-clear-thinking.1",
    "anthropic-json-tool.2",
    "anthropic-tool-no-args",
  ])("%s gives the same message at any byte boundaries", async (name) => {
    const body = fixture(name);
    server = await serveScript([{ kind: "sse", body }]);
    const m = model(server.baseUrl);
    const { message: baseline } = await run(m);
    expect(baseline.stopReason).not.toBe("error");
    await atAnyByteBoundaries(server, body, async () => {
      const { message } = await run(m);
      expect({ ...message, timestamp: 0 }).toEqual({ ...baseline, timestamp: 0 });
    });
  });
});

describe("anthropic-messages streaming details", () => {
  it("redacted thinking, later usage overriding the first, max_tokens as length", async () => {
    const { message } = await serve(
      sse([
        start({
          input_tokens: 10,
          output_tokens: 1,
          cache_read_input_tokens: 0,
          cache_creation_input_tokens: 0,
        }),
        {
          type: "content_block_start",
          index: 0,
          content_block: { type: "redacted_thinking", data: "EmwKAhgB-opaque" },
        },
        stopBlock(0),
        ...textBlock(1, "Partial ans"),
        stopBlock(1),
        ...end("max_tokens", {
          output_tokens: 20,
          input_tokens: 12,
          cache_read_input_tokens: 5,
          cache_creation_input_tokens: 3,
        }),
      ]),
    );
    expect(message.content).toEqual([
      { type: "thinking", thinking: "", signature: "EmwKAhgB-opaque", redacted: true },
      { type: "text", text: "Partial ans" },
    ]);
    expect(message.stopReason).toBe("length");
    expect(tokens(message)).toEqual({ input: 12, output: 20, cacheRead: 5, cacheWrite: 3, totalTokens: 40 });
  });

  it("a tool input given whole in content_block_start is kept", async () => {
    const { message } = await serve(
      sse([
        start(),
        {
          type: "content_block_start",
          index: 0,
          content_block: { type: "tool_use", id: "toolu_1", name: "read", input: { path: "a.txt" } },
        },
        stopBlock(0),
        ...end("tool_use"),
      ]),
    );
    expect(message.content).toEqual([
      { type: "toolCall", id: "toolu_1", name: "read", arguments: { path: "a.txt" } },
    ]);
    expect(message.stopReason).toBe("toolUse");
  });

  it("a refusal ends as an error that says so, keeping the text", async () => {
    const { message } = await serve(
      sse([start(), ...textBlock(0, "I can't"), stopBlock(0), ...end("refusal")]),
    );
    expect(message.stopReason).toBe("error");
    expect(message.errorKind).toBe("invalid_request");
    expect(message.errorMessage).toBe("The model refused to respond (stop_reason: refusal)");
    expect(message.content).toEqual([{ type: "text", text: "I can't" }]);
  });

  it("the client ignores data lines without an `event:` name, so such a stream fails as incomplete", async () => {
    const body = fixtureLines(`${DIR}anthropic-text.chunks.txt`)
      .map((line) => `data: ${line}\n\n`)
      .join("");
    const { message } = await serve(body);
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toBe("Stream ended before message_stop");
    expect(message.content).toEqual([]);
  });
});

describe("anthropic-messages requests", () => {
  it("converts the context: system, images, thinking replay, sanitized ids, merged tool results", async () => {
    server = await serveScript([{ kind: "sse", body: fixture("anthropic-text") }]);
    // A base URL written with /v1 still reaches /v1/messages.
    const m = model(`${server.baseUrl}/v1`, { headers: { "x-model-header": "m" } });
    const assistant: AssistantMessage = {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "Two files.", signature: "sig-1" },
        { type: "thinking", thinking: "", signature: "redacted-data", redacted: true },
        { type: "thinking", thinking: "unsigned, cannot be replayed" },
        { type: "text", text: "Reading both." },
        { type: "toolCall", id: "call|a.1", name: "read", arguments: { path: "a" } },
        { type: "toolCall", id: "toolu_b", name: "read", arguments: { path: "b" } },
      ],
      api: "anthropic-messages",
      provider: "anthropic",
      model: "claude-test",
      usage: emptyUsage(),
      stopReason: "toolUse",
      timestamp: 2,
    };
    const context: Context = {
      systemPrompt: "Be brief.",
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "Compare:" },
            { type: "image", data: "aGVsbG8=", mimeType: "image/png" },
          ],
          timestamp: 1,
        },
        assistant,
        {
          role: "toolResult",
          toolCallId: "call|a.1",
          toolName: "read",
          content: [{ type: "text", text: "A" }],
          isError: false,
          timestamp: 3,
        },
        {
          role: "toolResult",
          toolCallId: "toolu_b",
          toolName: "read",
          content: [{ type: "text", text: "no such file" }],
          isError: true,
          timestamp: 4,
        },
        { role: "user", content: "Thanks", timestamp: 5 },
      ],
      tools: [
        {
          name: "read",
          description: "Reads a file.",
          parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
        },
      ],
    };
    const { message } = await run(m, context, {
      apiKey: "sk-ant-test",
      headers: { "x-call-header": "c" },
      reasoning: "medium",
      maxTokens: 4000,
      toolChoice: "auto",
      responseFormat: { type: "json_object" },
    });
    expect(message.stopReason).toBe("stop");
    const request = server.requests[0]!;
    expect(request.url).toBe("/v1/messages");
    expect(request.headers["x-model-header"]).toBe("m");
    expect(request.headers["x-call-header"]).toBe("c");
    expect(request.body).toEqual({
      model: "claude-test",
      max_tokens: 4000,
      stream: true,
      system: "Be brief.",
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "Compare:" },
            { type: "image", source: { type: "base64", media_type: "image/png", data: "aGVsbG8=" } },
          ],
        },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "Two files.", signature: "sig-1" },
            { type: "redacted_thinking", data: "redacted-data" },
            { type: "text", text: "Reading both." },
            { type: "tool_use", id: "call_a_1", name: "read", input: { path: "a" } },
            { type: "tool_use", id: "toolu_b", name: "read", input: { path: "b" } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "call_a_1", content: [{ type: "text", text: "A" }] },
            {
              type: "tool_result",
              tool_use_id: "toolu_b",
              content: [{ type: "text", text: "no such file" }],
              is_error: true,
            },
          ],
        },
        { role: "user", content: [{ type: "text", text: "Thanks" }] },
      ],
      tools: [
        {
          name: "read",
          description: "Reads a file.",
          input_schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
        },
      ],
      tool_choice: { type: "auto" },
      // medium is 8192, capped to leave 1024 of the 4000 for the answer.
      thinking: { type: "enabled", budget_tokens: 2976 },
    });
  });

  it("a forced tool choice turns thinking off; max_tokens defaults to the model's", async () => {
    server = await serveScript([{ kind: "sse", body: fixture("anthropic-text") }]);
    await run(
      model(server.baseUrl),
      { ...hello, tools: [{ name: "read", description: "Reads.", parameters: { type: "object" } }] },
      { apiKey: "sk-ant-test", reasoning: "high", toolChoice: { name: "read" } },
    );
    const body = server.requests[0]!.body as Record<string, unknown>;
    expect(body.max_tokens).toBe(8000);
    expect(body.tool_choice).toEqual({ type: "tool", name: "read" });
    expect(body.thinking).toBeUndefined();
  });

  it("does not turn thinking on mid tool loop after a turn from another model", async () => {
    server = await serveScript([{ kind: "sse", body: fixture("anthropic-text") }]);
    const foreign: AssistantMessage = {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "hidden", signature: '{"id":"rs_1"}' },
        { type: "toolCall", id: "call_1", name: "read", arguments: {}, signature: "fc_1" },
      ],
      api: "openai-responses",
      provider: "openai",
      model: "gpt-5",
      usage: emptyUsage(),
      stopReason: "toolUse",
      timestamp: 2,
    };
    const result = {
      role: "toolResult" as const,
      toolCallId: "call_1",
      toolName: "read",
      content: [{ type: "text" as const, text: "ok" }],
      isError: false,
      timestamp: 3,
    };
    await run(
      model(server.baseUrl),
      { messages: [...hello.messages, foreign, result] },
      {
        apiKey: "sk-ant-test",
        reasoning: "high",
      },
    );
    const body = server.requests[0]!.body as Record<string, unknown>;
    expect(body.thinking).toBeUndefined();
    expect(body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "hi" }] },
      { role: "assistant", content: [{ type: "tool_use", id: "call_1", name: "read", input: {} }] },
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "call_1", content: [{ type: "text", text: "ok" }] }],
      },
    ]);
  });

  it("sanitizes tool ids to Anthropic's pattern and length", () => {
    expect(sanitizeToolId("call_ok-1")).toBe("call_ok-1");
    expect(sanitizeToolId("fc_1|call.2")).toBe("fc_1_call_2");
    const long = sanitizeToolId(`x${"a".repeat(80)}`);
    expect(long).toHaveLength(64);
    expect(long).toMatch(/^[a-zA-Z0-9_-]+$/);
    expect(sanitizeToolId(`x${"a".repeat(80)}`)).toBe(long);
    expect(sanitizeToolId(`y${"a".repeat(80)}`)).not.toBe(long);
  });
});

describe("anthropic-messages failures", () => {
  it("an overloaded_error event mid-stream fails as overloaded and keeps the text", async () => {
    const body =
      sse([start(), ...textBlock(0, "Hel", "lo")]) +
      `event: error\ndata: ${JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } })}\n\n`;
    const { message, events } = await serve(body);
    expect(message.stopReason).toBe("error");
    expect(message.errorKind).toBe("overloaded");
    expect(message.errorMessage).toBe("Overloaded");
    expect(message.content).toEqual([{ type: "text", text: "Hello" }]);
    expect(events.map((e) => e.type)).toEqual(["start", "text_start", "text_delta", "text_delta", "error"]);
  });

  it("a stream cut mid-text fails as a network error and keeps the partial text", async () => {
    const body = fixture("anthropic-text");
    const at = body.indexOf('"text":". How are you');
    expect(at).toBeGreaterThan(0);
    const cutAfter = Buffer.byteLength(body.slice(0, at));
    const { message } = await serve(body, { cutAfter });
    expect(message.stopReason).toBe("error");
    expect(message.errorKind).toBe("network");
    expect(message.content).toEqual([{ type: "text", text: "Hello! I'm doing well, thank you for asking" }]);
    expect(tokens(message)).toMatchObject({ input: 12, output: 1 });
  });

  it("a stream that closes without message_stop is a failure", async () => {
    const { message } = await serve(sse([start(), ...textBlock(0, "Hi"), stopBlock(0), end("end_turn")[0]!]));
    expect(message).toMatchObject({ stopReason: "error", errorKind: "network" });
    expect(message.errorMessage).toBe("Stream ended before message_stop");
    expect(message.content).toEqual([{ type: "text", text: "Hi" }]);
  });

  it("abort mid-stream ends with aborted and keeps what arrived", async () => {
    const body = sse([start(), ...textBlock(0, "one ", "two ", "three "), stopBlock(0), ...end("end_turn")]);
    const parts = body.split("\n\n").filter(Boolean);
    const chunks = parts.map((_, i) => Buffer.byteLength(`${parts.slice(0, i + 1).join("\n\n")}\n\n`));
    server = await serveScript([{ kind: "sse", body, chunks, delayMs: 30 }]);
    const controller = new AbortController();
    const s = streamAnthropicMessages(model(server.baseUrl), hello, {
      apiKey: "sk-ant-test",
      signal: controller.signal,
    });
    for await (const event of s) if (event.type === "text_delta") controller.abort();
    const message = await s.result();
    expect(message.stopReason).toBe("aborted");
    expect(message.errorKind).toBe("aborted");
    expect(message.content).toEqual([{ type: "text", text: "one " }]);
  });

  it("HTTP 529 is overloaded", async () => {
    server = await serveScript([
      {
        kind: "json",
        status: 529,
        body: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
      },
    ]);
    const { message, events } = await run(model(server.baseUrl));
    expect(message.errorKind).toBe("overloaded");
    expect(message.errorMessage).toBe("529 Overloaded");
    expect(events.at(-1)).toMatchObject({ type: "error", status: 529 });
    expect(server.requests).toHaveLength(1); // the client itself does not retry
  });

  it('HTTP 400 "prompt is too long" is a context overflow', async () => {
    server = await serveScript([
      {
        kind: "json",
        status: 400,
        body: {
          type: "error",
          error: {
            type: "invalid_request_error",
            message: "prompt is too long: 210000 tokens > 200000 maximum",
          },
        },
      },
    ]);
    const { message } = await run(model(server.baseUrl));
    expect(message.stopReason).toBe("error");
    expect(message.errorKind).toBe("context_overflow");
    expect(message.errorMessage).toBe("400 prompt is too long: 210000 tokens > 200000 maximum");
  });

  it("a missing API key fails as auth before any request", async () => {
    server = await serveScript([]);
    const { message } = await run(model(server.baseUrl, { provider: "tern-test-nokey" }), hello, {});
    expect(message.errorKind).toBe("auth");
    expect(message.errorMessage).toBe(
      'No API key for provider "tern-test-nokey": set TERN_TEST_NOKEY_API_KEY or pass apiKey',
    );
    expect(server.requests).toHaveLength(0);
  });
});
