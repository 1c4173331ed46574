import { afterEach, describe, expect, it } from "vitest";
import { streamOpenAIResponses } from "../src/providers/openai-responses.js";
import { type ScriptServer, serveScript, typedSse } from "../src/testing/index.js";
import type { Context, Model, StreamOptions, ThinkingContent } from "../src/types.js";
import { emptyUsage } from "../src/usage.js";
import { fixtureLines } from "./support/fixtures.js";
import { atAnyByteBoundaries, collect, hello, tokens } from "./support/provider-harness.js";

const DIR = "openai-responses/";

let server: ScriptServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function model(baseUrl: string, overrides: Partial<Model> = {}): Model {
  return {
    id: "gpt-test",
    name: "GPT test",
    api: "openai-responses",
    provider: "openai",
    baseUrl: `${baseUrl}/v1`,
    contextWindow: 400_000,
    maxOutputTokens: 128_000,
    abilities: { toolCall: true, jsonMode: true, reasoning: true, images: true },
    prices: { input: 1, output: 10, cacheRead: 0.1, cacheWrite: 0 },
    ...overrides,
  };
}

const run = (m: Model, context: Context = hello, options: StreamOptions = { apiKey: "sk-test" }) =>
  collect(streamOpenAIResponses, m, context, options);

/** Serves one SSE body and runs the provider against it. */
async function serve(body: string, extra: { chunks?: number[]; cutAfter?: number; delayMs?: number } = {}) {
  server = await serveScript([{ kind: "sse", body, ...extra }]);
  return run(model(server.baseUrl));
}

/** The encrypted-content capture holds four responses; each starts with response.created. */
function splitResponses(lines: string[]): string[][] {
  const groups: string[][] = [];
  for (const line of lines) {
    if ((JSON.parse(line) as { type: string }).type === "response.created") groups.push([]);
    groups.at(-1)!.push(line);
  }
  return groups;
}

const PHASE_FINAL =
  "Here are a few **AI headlines for today (Wednesday, February 25, 2026)** based on currently available reports:\n\n" +
  "1. **Anthropic enterprise push appears to be driving market reaction**  \n" +
  "   Multiple outlets report Anthropic expanding enterprise integrations for Claude (workflow tools like Slack and others are frequently cited), with notable knock-on effects in software stocks.  \n" +
  "   Source roundup mentioning this trend: https://stemgeeks.net/%40ai-news-daily/ai-news-digest-february-25-2026  \n" +
  "   Related market reaction coverage: https://www.livemint.com/market/stock-market-news/anthropics-ai-tools-spark-tech-stock-meltdown-ibm-microsoft-salesforce-down-up-to-34-in-2026-11771935374845.html\n\n" +
  "2. **Google Gemini model updates are still unfolding in February 2026**  \n" +
  "   Reports reference fresh Gemini updates/releases in late February (including Gemini 3.1 Pro preview timing).  \n" +
  "   Background/tracking page: https://en.wikipedia.org/wiki/Google_Gemini\n\n" +
  "3. **Global policy/governance angle remains active after India AI Impact Summit (Feb 16–21, 2026)**  \n" +
  "   The summit just concluded and is being framed as a major international AI coordination event (with focus on implementation and impact).  \n" +
  "   Summary page: https://en.wikipedia.org/wiki/India_AI_Impact_Summit_2026\n\n" +
  "---\n\n" +
  "If you want, I can do a **stricter “top 5 from highest-credibility outlets only”** (Reuters, FT, Bloomberg, AP, official company blogs) and give you a cleaner, investor-grade morning brief with timestamps.";

describe("openai-responses conformance (captured streams)", () => {
  it("azure-tool-call.1: one function call, ids kept, usage", async () => {
    const { message } = await serve(typedSse(fixtureLines(`${DIR}azure-tool-call.1.chunks.txt`)));
    expect(message.content).toEqual([
      {
        type: "toolCall",
        id: "call_H5DxLSFnsGhiROnUiDHmgyc8",
        name: "weather",
        arguments: { location: "San Francisco" },
        signature: "fc_04041325ab8ae30400698c51c5468c8197a395f18875a5339f",
      },
    ]);
    expect(message.stopReason).toBe("toolUse");
    expect(message.responseId).toBe("resp_04041325ab8ae30400698c519fb7fc81979972618138fc336d");
    expect(tokens(message)).toEqual({ input: 45, output: 24, cacheRead: 0, cacheWrite: 0, totalTokens: 69 });
  });

  it("openai-client-tool-search.2: streamed argument deltas", async () => {
    const { message, events } = await serve(
      typedSse(fixtureLines(`${DIR}openai-client-tool-search.2.chunks.txt`)),
    );
    expect(message.content).toEqual([
      {
        type: "toolCall",
        id: "call_Q7pq6EfVGRnauPLWSSYBGJ1l",
        name: "get_weather",
        arguments: { location: "San Francisco, CA", unit: "fahrenheit" },
        signature: "fc_05147bbe356953b60069ab673745c081969b5c16c333b4f179",
      },
    ]);
    expect(message.stopReason).toBe("toolUse");
    expect(tokens(message)).toEqual({
      input: 467,
      output: 26,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 493,
    });
    expect(events.filter((e) => e.type === "toolcall_delta")).toHaveLength(13);
  });

  it("openai-error.1: the error event ends the stream with the capture's message", async () => {
    const { message, events } = await serve(typedSse(fixtureLines(`${DIR}openai-error.1.chunks.txt`)));
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toBe(
      "You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.",
    );
    // Like an HTTP 429 quota error: not worth retrying.
    expect(message.errorKind).toBe("auth");
    expect(message.content).toEqual([]);
    expect(events.at(-1)?.type).toBe("error");
  });

  it("openai-phase.1: commentary then final answer, each its own text with id and phase", async () => {
    const { message } = await serve(typedSse(fixtureLines(`${DIR}openai-phase.1.chunks.txt`)));
    expect(message.content).toEqual([
      {
        type: "text",
        // The capture keeps only the first deltas; the done item carries the whole text.
        text: "Got it — I’ll quickly check reliable, up-to-date sources for AI headlines from **today (February 25, 2026)** and then summarize the key items with links.",
        signature: '{"id":"msg_0a63f40a2632b74300699f8819a5e08196ac270722d369af5a","phase":"commentary"}',
      },
      {
        type: "text",
        text: PHASE_FINAL,
        signature: '{"id":"msg_0a63f40a2632b74300699f881bfbc88196aec38f30c3dd24b0","phase":"final_answer"}',
      },
    ]);
    expect(message.stopReason).toBe("stop");
    // input_tokens 7112 includes 3072 cached.
    expect(tokens(message)).toEqual({
      input: 4040,
      output: 463,
      cacheRead: 3072,
      cacheWrite: 0,
      totalTokens: 7575,
    });
    // $1/M input, $10/M output, $0.1/M cache read.
    expect(message.usage.cost.total).toBeCloseTo(0.00404 + 0.00463 + 0.0003072, 10);
  });

  describe("openai-reasoning-encrypted-content.1 (four responses)", () => {
    const groups = splitResponses(fixtureLines(`${DIR}openai-reasoning-encrypted-content.1.chunks.txt`));

    it("holds four responses", () => {
      expect(groups).toHaveLength(4);
    });

    it("response 1: reasoning summary with its encrypted item, then a call", async () => {
      const { message } = await serve(typedSse(groups[0]!));
      expect(message.content).toHaveLength(2);
      const thinking = message.content[0] as ThinkingContent;
      expect(thinking.type).toBe("thinking");
      expect(thinking.thinking).toBe(
        "**Calculating step-by-step using calculator**\n\nI'll compute 12 plus 7, then multiply the result by 3, and finally multiply that by 10, reporting the final product.",
      );
      // The signature is the reasoning item from output_item.done (its encrypted_content differs from .added).
      expect(JSON.parse(thinking.signature!)).toEqual({
        id: "rs_01830d662ab3856501693c321405c88190be3ab04d5782d5f9",
        type: "reasoning",
        encrypted_content: expect.stringMatching(/^gAAAAABpPDIVOKrsHNZ0Gws.*z4uQ==$/),
        summary: [
          {
            type: "summary_text",
            text: "**Calculating step-by-step using calculator**\n\nI'll compute 12 plus 7, then multiply the result by 3, and finally multiply that by 10, reporting the final product.",
          },
        ],
      });
      expect(message.content[1]).toEqual({
        type: "toolCall",
        id: "call_AB6AaRZ1FYZB2RwS6A5vbdqn",
        name: "calculator",
        arguments: { a: 12, b: 7, op: "add" },
        signature: "fc_01830d662ab3856501693c32151234819091cfca267e98cc5f",
      });
      expect(message.stopReason).toBe("toolUse");
      expect(message.responseId).toBe("resp_01830d662ab3856501693c321345c88190b0de00f3b9975691");
      expect(tokens(message)).toEqual({
        input: 134,
        output: 28,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 162,
      });
    });

    it("response 2: a call", async () => {
      const { message } = await serve(typedSse(groups[1]!));
      expect(message.content).toEqual([
        {
          type: "toolCall",
          id: "call_Q6pW65MUgW9vF59BmItYGos3",
          name: "calculator",
          arguments: { a: 19, b: 3, op: "multiply" },
          signature: "fc_01830d662ab3856501693c32165be4819098c08f205f8932ef",
        },
      ]);
      expect(message.stopReason).toBe("toolUse");
      expect(message.responseId).toBe("resp_01830d662ab3856501693c3215903881909b710d150ff65014");
      expect(tokens(message)).toEqual({
        input: 221,
        output: 26,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 247,
      });
    });

    it("response 3: a call", async () => {
      const { message } = await serve(typedSse(groups[2]!));
      expect(message.content).toEqual([
        {
          type: "toolCall",
          id: "call_Zl5vIMnD7dVAjgU6FkhmiCZh",
          name: "calculator",
          arguments: { a: 57, b: 10, op: "multiply" },
          signature: "fc_01830d662ab3856501693c32173d5081908f2121e1c3ff2901",
        },
      ]);
      expect(tokens(message)).toEqual({
        input: 260,
        output: 26,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 286,
      });
    });

    it("response 4: the final text", async () => {
      const { message } = await serve(typedSse(groups[3]!));
      expect(message.content).toEqual([
        {
          type: "text",
          text: "The final result is **570**.",
          signature: '{"id":"msg_01830d662ab3856501693c32183a488190a612c410a0a39823"}',
        },
      ]);
      expect(message.stopReason).toBe("stop");
      expect(message.responseId).toBe("resp_01830d662ab3856501693c3217ba4c8190a3ddf6c839d4f12a");
      expect(tokens(message)).toEqual({
        input: 299,
        output: 12,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 311,
      });
    });
  });
});

describe("openai-responses re-chunked captures (property)", () => {
  const captures: [string, string][] = [
    ["azure-tool-call.1", typedSse(fixtureLines(`${DIR}azure-tool-call.1.chunks.txt`))],
    ["openai-client-tool-search.2", typedSse(fixtureLines(`${DIR}openai-client-tool-search.2.chunks.txt`))],
    ["openai-error.1", typedSse(fixtureLines(`${DIR}openai-error.1.chunks.txt`))],
    ["openai-phase.1", typedSse(fixtureLines(`${DIR}openai-phase.1.chunks.txt`))],
    ...splitResponses(fixtureLines(`${DIR}openai-reasoning-encrypted-content.1.chunks.txt`)).map(
      (group, i): [string, string] => [`openai-reasoning-encrypted-content.1 #${i + 1}`, typedSse(group)],
    ),
  ];

  it.each(captures)("%s gives the same message at any byte boundaries", async (_name, body) => {
    server = await serveScript([{ kind: "sse", body }]);
    const m = model(server.baseUrl);
    const { message: baseline } = await run(m);
    await atAnyByteBoundaries(server, body, async () => {
      const { message } = await run(m);
      expect({ ...message, timestamp: 0 }).toEqual({ ...baseline, timestamp: 0 });
    });
  });
});

describe("openai-responses requests", () => {
  const reasoningItem = {
    id: "rs_1",
    type: "reasoning",
    encrypted_content: "gAAA-secret",
    summary: [{ type: "summary_text", text: "Add them." }],
  };

  it("converts the context: instructions, images, replayed reasoning, phases, calls, results, options", async () => {
    server = await serveScript([
      {
        kind: "sse",
        body: typedSse(
          splitResponses(fixtureLines(`${DIR}openai-reasoning-encrypted-content.1.chunks.txt`))[3]!,
        ),
      },
    ]);
    const m = model(server.baseUrl, { headers: { "x-model-header": "m" } });
    const context: Context = {
      systemPrompt: "Be brief.",
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "What is 2+3? See:" },
            { type: "image", data: "aGVsbG8=", mimeType: "image/png" },
          ],
          timestamp: 1,
        },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "Add them.", signature: JSON.stringify(reasoningItem) },
            { type: "text", text: "Let me add.", signature: '{"id":"msg_1","phase":"commentary"}' },
            {
              type: "toolCall",
              id: "call_1",
              name: "calculator",
              arguments: { a: 2, b: 3 },
              signature: "fc_1",
            },
          ],
          api: "openai-responses",
          provider: "openai",
          model: "gpt-test",
          usage: emptyUsage(),
          stopReason: "toolUse",
          timestamp: 2,
        },
        {
          role: "toolResult",
          toolCallId: "call_1",
          toolName: "calculator",
          content: [{ type: "text", text: "5" }],
          isError: false,
          timestamp: 3,
        },
      ],
      tools: [
        {
          name: "calculator",
          description: "Adds.",
          parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } },
        },
      ],
    };
    const { message } = await run(m, context, {
      apiKey: "sk-test",
      headers: { "x-call-header": "c" },
      reasoning: "high",
      maxTokens: 500,
      toolChoice: { name: "calculator" },
      responseFormat: { type: "json_schema", name: "answer", schema: { type: "object" }, strict: true },
      sessionId: "session-1",
    });
    expect(message.stopReason).toBe("stop");
    const request = server.requests[0]!;
    expect(request.url).toBe("/v1/responses");
    expect(request.headers.authorization).toBe("Bearer sk-test");
    expect(request.headers["x-model-header"]).toBe("m");
    expect(request.headers["x-call-header"]).toBe("c");
    expect(request.body).toEqual({
      model: "gpt-test",
      stream: true,
      store: false,
      instructions: "Be brief.",
      input: [
        {
          role: "user",
          content: [
            { type: "input_text", text: "What is 2+3? See:" },
            { type: "input_image", detail: "auto", image_url: "data:image/png;base64,aGVsbG8=" },
          ],
        },
        reasoningItem,
        {
          type: "message",
          role: "assistant",
          id: "msg_1",
          status: "completed",
          content: [{ type: "output_text", text: "Let me add.", annotations: [] }],
          phase: "commentary",
        },
        {
          type: "function_call",
          call_id: "call_1",
          name: "calculator",
          arguments: '{"a":2,"b":3}',
          id: "fc_1",
        },
        { type: "function_call_output", call_id: "call_1", output: "5" },
      ],
      tools: [
        {
          type: "function",
          name: "calculator",
          description: "Adds.",
          parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } },
          strict: false,
        },
      ],
      tool_choice: { type: "function", name: "calculator" },
      text: { format: { type: "json_schema", name: "answer", schema: { type: "object" }, strict: true } },
      include: ["reasoning.encrypted_content"],
      reasoning: { effort: "high", summary: "auto" },
      max_output_tokens: 500,
      prompt_cache_key: "session-1",
    });
  });

  it("asks for no reasoning fields from a model without reasoning, and pairs a dangling call", async () => {
    server = await serveScript([
      {
        kind: "sse",
        body: typedSse(
          splitResponses(fixtureLines(`${DIR}openai-reasoning-encrypted-content.1.chunks.txt`))[3]!,
        ),
      },
    ]);
    const m = model(server.baseUrl, {
      abilities: { toolCall: true, jsonMode: true, reasoning: false, images: false },
    });
    await run(
      m,
      {
        messages: [
          {
            role: "user",
            content: [{ type: "image", data: "aGVsbG8=", mimeType: "image/png" }],
            timestamp: 1,
          },
          {
            role: "assistant",
            content: [{ type: "toolCall", id: "call_9", name: "ls", arguments: {} }],
            api: "openai-responses",
            provider: "openai",
            model: "gpt-test",
            usage: emptyUsage(),
            stopReason: "aborted",
            timestamp: 2,
          },
        ],
      },
      { apiKey: "sk-test", reasoning: "high", responseFormat: { type: "json_object" } },
    );
    expect(server.requests[0]!.body).toEqual({
      model: "gpt-test",
      stream: true,
      store: false,
      input: [
        {
          role: "user",
          content: [{ type: "input_text", text: "(image omitted: this model does not accept images)" }],
        },
        { type: "function_call", call_id: "call_9", name: "ls", arguments: "{}" },
        {
          type: "function_call_output",
          call_id: "call_9",
          output: "Tool call was interrupted: no result was recorded.",
        },
      ],
      text: { format: { type: "json_object" } },
    });
  });
});

/** A tiny hand-written Responses stream: created, one message item with the given deltas, then `tail`. */
function textStream(deltas: string[], tail: object[]): string {
  const head = [
    { type: "response.created", response: { id: "resp_t", status: "in_progress", output: [] } },
    {
      type: "response.output_item.added",
      output_index: 0,
      item: { id: "msg_t", type: "message", status: "in_progress", role: "assistant", content: [] },
    },
    ...deltas.map((delta) => ({
      type: "response.output_text.delta",
      output_index: 0,
      content_index: 0,
      item_id: "msg_t",
      delta,
    })),
  ];
  return typedSse([...head, ...tail].map((event) => JSON.stringify(event)));
}

describe("openai-responses streaming details", () => {
  it("matches items by output_index when item ids change; summary parts join; bare reasoning keeps its item", async () => {
    const reasoning = { id: "rs_final", type: "reasoning", encrypted_content: "enc", summary: [] };
    const summary = (summary_index: number, delta: string) => ({
      type: "response.reasoning_summary_text.delta",
      output_index: 0,
      summary_index,
      item_id: `rs_changed_${summary_index}`,
      delta,
    });
    const events = [
      { type: "response.created", response: { id: "resp_x", status: "in_progress", output: [] } },
      {
        type: "response.output_item.added",
        output_index: 0,
        item: { ...reasoning, id: "rs_first", encrypted_content: "old" },
      },
      summary(0, "**Plan**"),
      summary(1, "Look it up."),
      {
        type: "response.output_item.done",
        output_index: 0,
        item: {
          ...reasoning,
          summary: [
            { type: "summary_text", text: "**Plan**" },
            { type: "summary_text", text: "Look it up." },
          ],
        },
      },
      { type: "response.output_item.added", output_index: 1, item: reasoning },
      { type: "response.output_item.done", output_index: 1, item: reasoning },
      {
        type: "response.output_item.added",
        output_index: 2,
        item: { id: "fc_a", type: "function_call", call_id: "call_1", name: "search", arguments: "" },
      },
      { type: "response.function_call_arguments.delta", output_index: 2, item_id: "fc_b", delta: '{"q":' },
      { type: "response.function_call_arguments.delta", output_index: 2, item_id: "fc_c", delta: '"tern"}' },
      {
        type: "response.output_item.done",
        output_index: 2,
        item: {
          id: "fc_d",
          type: "function_call",
          call_id: "call_1",
          name: "search",
          arguments: '{"q":"tern"}',
        },
      },
      { type: "response.completed", response: { id: "resp_x", status: "completed", output: [] } },
    ];
    const { message } = await serve(typedSse(events.map((event) => JSON.stringify(event))));
    expect(message.content).toEqual([
      {
        type: "thinking",
        thinking: "**Plan**\n\nLook it up.",
        signature:
          '{"id":"rs_final","type":"reasoning","encrypted_content":"enc","summary":[{"type":"summary_text","text":"**Plan**"},{"type":"summary_text","text":"Look it up."}]}',
      },
      {
        type: "thinking",
        thinking: "",
        signature: '{"id":"rs_final","type":"reasoning","encrypted_content":"enc","summary":[]}',
      },
      { type: "toolCall", id: "call_1", name: "search", arguments: { q: "tern" }, signature: "fc_d" },
    ]);
    expect(message.stopReason).toBe("toolUse");
  });
});

describe("openai-responses failures", () => {
  it("an error event mid-stream fails with its code's kind and keeps the text", async () => {
    const { message, events } = await serve(
      textStream(
        ["Hel", "lo"],
        [{ type: "error", code: "server_error", message: "The server had an error", param: null }],
      ),
    );
    expect(message.stopReason).toBe("error");
    expect(message.errorKind).toBe("server");
    expect(message.errorMessage).toBe("The server had an error");
    expect(message.content).toEqual([{ type: "text", text: "Hello" }]);
    expect(events.map((e) => e.type)).toEqual(["start", "text_start", "text_delta", "text_delta", "error"]);
  });

  it("response.failed fails with the response's error", async () => {
    const { message } = await serve(
      textStream(
        ["Hi"],
        [
          {
            type: "response.failed",
            response: {
              id: "resp_t",
              status: "failed",
              error: { code: "rate_limit_exceeded", message: "Slow down" },
              output: [],
            },
          },
        ],
      ),
    );
    expect(message).toMatchObject({
      stopReason: "error",
      errorKind: "rate_limit",
      errorMessage: "Slow down",
    });
    expect(message.content).toEqual([{ type: "text", text: "Hi" }]);
  });

  it("status incomplete for max_output_tokens is a length stop", async () => {
    const { message } = await serve(
      textStream(
        ["Once upon"],
        [
          {
            type: "response.incomplete",
            response: {
              id: "resp_t",
              status: "incomplete",
              incomplete_details: { reason: "max_output_tokens" },
              output: [],
              usage: { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 3 },
            },
          },
        ],
      ),
    );
    expect(message.stopReason).toBe("length");
    expect(message.content).toEqual([{ type: "text", text: "Once upon" }]);
    expect(tokens(message)).toEqual({ input: 10, output: 3, cacheRead: 0, cacheWrite: 0, totalTokens: 13 });
  });

  it("a stream cut mid-answer fails as a network error and keeps the partial text", async () => {
    const body = typedSse(fixtureLines(`${DIR}openai-phase.1.chunks.txt`));
    const at = body.indexOf('"delta":" few **AI"');
    expect(at).toBeGreaterThan(0);
    const cutAfter = Buffer.byteLength(body.slice(0, at));
    const { message } = await serve(body, { cutAfter });
    expect(message.stopReason).toBe("error");
    expect(message.errorKind).toBe("network");
    expect(message.content.map((part) => (part.type === "text" ? part.text : part.type))).toEqual([
      "Got it — I’ll quickly check reliable, up-to-date sources for AI headlines from **today (February 25, 2026)** and then summarize the key items with links.",
      "Here are a",
    ]);
  });

  it("a stream that closes without response.completed is a failure", async () => {
    const lines = fixtureLines(`${DIR}azure-tool-call.1.chunks.txt`).slice(0, -1);
    const { message } = await serve(typedSse(lines));
    expect(message.stopReason).toBe("error");
    expect(message.errorKind).toBe("network");
    expect(message.errorMessage).toBe("Stream ended before response.completed");
    expect(message.content).toMatchObject([
      { type: "toolCall", name: "weather", arguments: { location: "San Francisco" } },
    ]);
  });

  it("abort mid-stream ends with aborted and keeps what arrived", async () => {
    const body = textStream(["one ", "two ", "three ", "four"], []);
    const events = body.split("\n\n").filter(Boolean);
    const chunks = events.map((_, i) => Buffer.byteLength(`${events.slice(0, i + 1).join("\n\n")}\n\n`));
    server = await serveScript([{ kind: "sse", body, chunks, delayMs: 30 }]);
    const controller = new AbortController();
    const s = streamOpenAIResponses(model(server.baseUrl), hello, {
      apiKey: "sk-test",
      signal: controller.signal,
    });
    const seen: string[] = [];
    for await (const event of s) {
      seen.push(event.type);
      if (event.type === "text_delta") controller.abort();
    }
    const message = await s.result();
    expect(message.stopReason).toBe("aborted");
    expect(message.errorKind).toBe("aborted");
    expect(message.content).toEqual([{ type: "text", text: "one " }]);
    expect(seen.at(-1)).toBe("error");
  });

  it("abort before the first byte ends with aborted", async () => {
    server = await serveScript([{ kind: "hang" }]);
    const controller = new AbortController();
    void server.requestsReceived(1).then(() => controller.abort());
    const { message } = await run(model(server.baseUrl), hello, {
      apiKey: "sk-test",
      signal: controller.signal,
    });
    expect(message.stopReason).toBe("aborted");
    expect(message.content).toEqual([]);
  });

  it("HTTP 429 is a rate limit with Retry-After and status on the error event", async () => {
    server = await serveScript([
      {
        kind: "json",
        status: 429,
        headers: { "retry-after": "7" },
        body: { error: { message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded" } },
      },
    ]);
    const { message, events } = await run(model(server.baseUrl));
    expect(message.errorKind).toBe("rate_limit");
    expect(message.errorMessage).toBe("429 Rate limit reached");
    expect(events.at(-1)).toMatchObject({ type: "error", status: 429, retryAfterMs: 7000 });
    expect(server.requests).toHaveLength(1); // the client itself does not retry
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
