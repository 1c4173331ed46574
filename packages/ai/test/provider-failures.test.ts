import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { isContextOverflow } from "../src/errors.js";
import "../src/providers/openai-completions.js"; // registers "openai-completions"
import { stream } from "../src/stream.js";
import { completionsSse, type Exchange, type ScriptServer, serveScript } from "../src/testing/index.js";
import type { AssistantEvent, AssistantMessage, Context, Model, StreamOptions } from "../src/types.js";
import { completionsModel } from "./support/provider-harness.js";

vi.mock("../src/delay.js", () => import("./support/delay-spy.js"));
const { waits } = await import("./support/delay-spy.js");

// Failures of the openai-completions provider through stream(), so retry and abort are the real ones.

/** The loopback model of these tests, without images. */
function testModel(baseUrl: string): Model {
  return completionsModel(baseUrl, {
    abilities: { toolCall: true, jsonMode: true, reasoning: false, images: false },
  });
}

const context: Context = { messages: [{ role: "user", content: "Read src/main.ts", timestamp: 1 }] };

/** A Chat Completions chunk payload (one `data:` line). */
function chunk(delta: object, finish: string | null = null): string {
  return JSON.stringify({ id: "chatcmpl-test", choices: [{ index: 0, delta, finish_reason: finish }] });
}

const okStream = completionsSse([
  chunk({ role: "assistant", content: "Hello" }),
  chunk({ content: " there." }),
  chunk({}, "stop"),
  JSON.stringify({ id: "chatcmpl-test", choices: [], usage: { prompt_tokens: 5, completion_tokens: 2 } }),
]);

const toolStream = completionsSse([
  chunk({ role: "assistant", content: "Let me look." }),
  chunk({
    tool_calls: [
      { index: 0, id: "call_cut", type: "function", function: { name: "read_file", arguments: "" } },
    ],
  }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: '{"path": "src/ma' } }] }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: 'in.ts"}' } }] }),
  chunk({}, "tool_calls"),
]);

let server: ScriptServer | undefined;
beforeEach(() => {
  waits.length = 0;
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await server?.close();
  server = undefined;
});

async function run(exchanges: Exchange[], options: StreamOptions = {}) {
  server = await serveScript(exchanges);
  const s = stream(testModel(server.baseUrl), context, { apiKey: "test-key", ...options });
  const events: AssistantEvent[] = [];
  for await (const event of s) events.push(event);
  const message = await s.result();
  return { message, events, requests: server.requests };
}

function text(message: AssistantMessage): string {
  return message.content.map((part) => (part.type === "text" ? part.text : "")).join("");
}

function streamedText(events: AssistantEvent[]): string {
  return events.map((event) => (event.type === "text_delta" ? event.delta : "")).join("");
}

/** Byte offsets just after each SSE event. */
function eventBoundaries(body: string): number[] {
  return [...body.matchAll(/\n\n/g)].map((match) => match.index + 2);
}

const fastRetry = { retry: { baseDelayMs: 1 } };

describe("openai-completions failures through stream()", () => {
  it("waits for Retry-After on a 429, then returns the success without duplicated output", async () => {
    const { message, events, requests } = await run(
      [
        {
          kind: "json",
          status: 429,
          headers: { "retry-after": "1" },
          body: {
            error: {
              message: "Rate limit reached for requests",
              type: "requests",
              code: "rate_limit_exceeded",
            },
          },
        },
        { kind: "sse", body: okStream },
      ],
      fastRetry, // backoff alone would wait ~1 ms: the second it waits comes from Retry-After
    );
    expect(requests).toHaveLength(2);
    // The one wait between the attempts is the server's second, not the ~1 ms backoff.
    expect(waits).toEqual([1000]);
    expect(message.stopReason).toBe("stop");
    expect(message.content).toEqual([{ type: "text", text: "Hello there." }]);
    expect(message.usage.input).toBe(5);
    expect(events.filter((event) => event.type === "start")).toHaveLength(1);
    expect(streamedText(events)).toBe("Hello there.");
    expect(events.filter((event) => event.type === "error")).toHaveLength(0);
  });

  it("retries a 500 until the retries run out, then fails as a server error", async () => {
    const error: Exchange = {
      kind: "json",
      status: 500,
      body: { error: { message: "Internal server error" } },
    };
    const { message, events, requests } = await run([error, error, error, error], {
      retry: { maxRetries: 2, baseDelayMs: 1 },
    });
    expect(requests).toHaveLength(3);
    expect(message.stopReason).toBe("error");
    expect(message.errorKind).toBe("server");
    expect(message.errorMessage).toContain("Internal server error");
    expect(message.content).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: "error", reason: "error", status: 500 });
  });

  it("fails a stream cut inside tool arguments, keeps the partial content and does not retry", async () => {
    const cutAfter = toolStream.indexOf('in.ts\\"}');
    expect(cutAfter).toBeGreaterThan(0);
    // Written event by event with a pause, so the bytes reach the client before the socket dies.
    const { message, requests } = await run(
      [{ kind: "sse", body: toolStream, cutAfter, chunks: eventBoundaries(toolStream), delayMs: 5 }],
      fastRetry,
    );
    expect(requests).toHaveLength(1);
    expect(message.stopReason).toBe("error");
    expect(message.errorKind).toBe("network");
    expect(message.errorMessage).toMatch(/stream ended before the response finished/i);
    expect(message.content[0]).toEqual({ type: "text", text: "Let me look." });
    expect(message.content[1]).toMatchObject({
      type: "toolCall",
      id: "call_cut",
      name: "read_file",
      arguments: { path: "src/ma" },
    });
    expect(message.content[1]).toHaveProperty("parseError");
  });

  it("fails on a malformed data line with a clear message, keeping what came before", async () => {
    const body = `data: ${chunk({ content: "Partial answer" })}\n\ndata: {"choices": [oops\n\ndata: ${chunk({ content: " lost" })}\n\ndata: ${chunk({}, "stop")}\n\ndata: [DONE]\n\n`;
    const { message, requests } = await run([{ kind: "sse", body }], fastRetry);
    expect(requests).toHaveLength(1);
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toContain(
      'Malformed data in the response stream in data line "{\\"choices\\": [oops": ',
    );
    expect(message.content).toEqual([{ type: "text", text: "Partial answer" }]);
  });

  it("fails on an error object inside the stream", async () => {
    const body = `data: ${chunk({ content: "Working" })}\n\ndata: {"error":{"message":"Upstream provider failed","code":502}}\n\n`;
    const { message, requests } = await run([{ kind: "sse", body }], fastRetry);
    expect(requests).toHaveLength(1);
    expect(message.stopReason).toBe("error");
    expect(message.errorKind).toBe("server");
    expect(message.errorMessage).toBe("The provider sent an error in the stream: Upstream provider failed");
    expect(message.content).toEqual([{ type: "text", text: "Working" }]);
  });

  it("fails a stream that ends cleanly without a finish_reason", async () => {
    const body = completionsSse([chunk({ role: "assistant", content: "Half a sent" })]);
    const { message } = await run([{ kind: "sse", body }], fastRetry);
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toMatch(/stream ended before the response finished/i);
    expect(message.content).toEqual([{ type: "text", text: "Half a sent" }]);
  });

  it("fails a response stopped by the content filter", async () => {
    const body = completionsSse([chunk({ content: "Sure, here" }), chunk({}, "content_filter")]);
    const { message } = await run([{ kind: "sse", body }]);
    expect(message.stopReason).toBe("error");
    expect(message.errorKind).toBe("invalid_request");
    expect(message.errorMessage).toMatch(/content filter/);
    expect(message.content).toEqual([{ type: "text", text: "Sure, here" }]);
  });

  it("ends with aborted at once when aborted mid-stream, keeping the partial text", async () => {
    const words = Array.from({ length: 10 }, (_, i) => `w${i} `);
    const body = completionsSse([...words.map((content) => chunk({ content })), chunk({}, "stop")]);
    // The server sends w0 and w1, then holds the stream open: only the abort can end this run.
    const holdAfter = eventBoundaries(body)[1]!;
    server = await serveScript([{ kind: "sse", body, chunks: eventBoundaries(body), holdAfter }]);
    const controller = new AbortController();
    const s = stream(testModel(server.baseUrl), context, { apiKey: "test-key", signal: controller.signal });
    const events: AssistantEvent[] = [];
    for await (const event of s) {
      events.push(event);
      if (event.type === "text_delta" && event.delta === "w1 ") controller.abort();
    }
    const message = await s.result();
    expect(message.stopReason).toBe("aborted");
    expect(message.errorKind).toBe("aborted");
    expect(text(message)).toBe("w0 w1 ");
    expect(events.at(-1)).toMatchObject({ type: "error", reason: "aborted" });
    expect(server.requests).toHaveLength(1);
  });

  it("ends with aborted fast when aborted before the first byte", async () => {
    // The server never answers: only the abort, sent once the request has arrived, ends the run.
    server = await serveScript([{ kind: "hang" }]);
    const controller = new AbortController();
    void server.requestsReceived(1).then(() => controller.abort());
    const message = await stream(testModel(server.baseUrl), context, {
      apiKey: "test-key",
      signal: controller.signal,
    }).result();
    expect(message.stopReason).toBe("aborted");
    expect(message.errorKind).toBe("aborted");
    expect(message.content).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it("reports a 401 as an auth failure without retrying", async () => {
    const { message, requests } = await run(
      [
        {
          kind: "json",
          status: 401,
          body: {
            error: {
              message: "Incorrect API key provided",
              type: "invalid_request_error",
              code: "invalid_api_key",
            },
          },
        },
      ],
      fastRetry,
    );
    expect(requests).toHaveLength(1);
    expect(message.stopReason).toBe("error");
    expect(message.errorKind).toBe("auth");
    expect(message.errorMessage).toContain("Incorrect API key provided");
  });

  it("recognises OpenAI's context_length_exceeded as a context overflow", async () => {
    const { message, requests } = await run(
      [
        {
          kind: "json",
          status: 400,
          body: {
            error: {
              message:
                "This model's maximum context length is 128000 tokens. However, your messages resulted in 130532 tokens. Please reduce the length of the messages.",
              type: "invalid_request_error",
              param: "messages",
              code: "context_length_exceeded",
            },
          },
        },
      ],
      fastRetry,
    );
    expect(requests).toHaveLength(1);
    expect(message.errorKind).toBe("context_overflow");
    expect(isContextOverflow(message)).toBe(true);
  });

  it("fails with an auth error naming OPENAI_API_KEY when there is no key, sending nothing", async () => {
    vi.stubEnv("OPENAI_API_KEY", "");
    server = await serveScript([{ kind: "sse", body: okStream }]);
    const message = await stream(testModel(server.baseUrl), context, fastRetry).result();
    expect(message.stopReason).toBe("error");
    expect(message.errorKind).toBe("auth");
    expect(message.errorMessage).toContain("OPENAI_API_KEY");
    expect(server.requests).toHaveLength(0);
  });
});

describe("a long-lived signal", () => {
  it("carries no listener per call once the call is over", async () => {
    const controller = new AbortController();
    const signal = controller.signal;
    let listening = 0;
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    signal.addEventListener = ((...args: Parameters<AbortSignal["addEventListener"]>) => {
      listening++;
      return add(...args);
    }) as AbortSignal["addEventListener"];
    signal.removeEventListener = ((...args: Parameters<AbortSignal["removeEventListener"]>) => {
      listening--;
      return remove(...args);
    }) as AbortSignal["removeEventListener"];
    server = await serveScript([
      { kind: "sse", body: okStream },
      { kind: "sse", body: okStream },
      { kind: "sse", body: okStream },
    ]);
    for (let i = 0; i < 3; i++) {
      const message = await stream(testModel(server.baseUrl), context, { apiKey: "k", signal }).result();
      expect(message.stopReason).toBe("stop");
    }
    await new Promise((resolve) => setImmediate(resolve)); // the call's own clean-up runs after its result
    expect(listening).toBe(0);
  });
});
