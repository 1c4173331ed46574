import { readdirSync } from "node:fs";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { streamOpenAICompletions } from "../src/providers/openai-completions.js";
import { completionsSse, type ScriptServer, serveScript } from "../src/testing/index.js";
import type { AssistantContent, AssistantMessage, Context, Model, StreamOptions } from "../src/types.js";
import { emptyUsage } from "../src/usage.js";
import { fixtureLines, fixtureText } from "./support/fixtures.js";
import { atAnyByteBoundaries, collect, completionsModel } from "./support/provider-harness.js";

const DIR = "openai-completions";

const ask: Context = {
  messages: [{ role: "user", content: "What is the weather in San Francisco?", timestamp: 1 }],
};

/** Runs the provider, checks the event stream is well formed, returns the final message. */
async function run(
  model: Model,
  context: Context = ask,
  options: StreamOptions = { apiKey: "test-key" },
): Promise<AssistantMessage> {
  const { events, message } = await collect(streamOpenAICompletions, model, context, options);
  expect(events[0]?.type).toBe("start");
  expect(["done", "error"]).toContain(events.at(-1)?.type);
  // Deltas add up to the final content, block by block.
  const streamed = new Map<number, string>();
  for (const event of events) {
    if (event.type === "text_delta" || event.type === "thinking_delta")
      streamed.set(event.contentIndex, (streamed.get(event.contentIndex) ?? "") + event.delta);
  }
  message.content.forEach((part, index) => {
    if (part.type === "text") expect(streamed.get(index)).toBe(part.text);
    if (part.type === "thinking") expect(streamed.get(index)).toBe(part.thinking);
  });
  return message;
}

interface Expected {
  content: AssistantContent[];
  stopReason: AssistantMessage["stopReason"];
  usage: { input: number; output: number; cacheRead: number; cacheWrite: number; totalTokens: number };
  responseId?: string;
}

function summary(message: AssistantMessage): Expected {
  const { input, output, cacheRead, cacheWrite, totalTokens } = message.usage;
  return {
    content: message.content,
    stopReason: message.stopReason,
    usage: { input, output, cacheRead, cacheWrite, totalTokens },
    ...(message.responseId !== undefined && { responseId: message.responseId }),
  };
}

const OPENAI_TEXT =
  "**Holiday Name:** Harmony Day\n\n**Date:** Celebrated annually on the first Saturday of May\n\n**Purpose:** Harmony Day is dedicated to fostering understanding, kindness, and unity among diverse communities. It emphasizes celebrating cultural differences while promoting empathy and collaboration.\n\n**Traditions:**\n\n1. **Cultural Potluck Gatherings:** Communities come together to share traditional dishes from their backgrounds, encouraging conversation and curiosity about different cultures.\n\n2. **Story Circles:** People of all ages are encouraged to share stories from their heritage or personal experiences that promote understanding and empathy.\n\n3. **Decorate for Unity:** Public spaces and homes are decorated with symbols representing different cultures—flags, traditional art, and meaningful motifs—to visually celebrate diversity.\n\n4. **Collaborative Art Projects:** Communities create murals or sculptures that symbolize unity and diversity, involving artists and residents of all ages.\n\n5. **Acts of Kindness:** As a central activity, participants perform Small acts of kindness throughout the day, such as volunteering, helping neighbors, or inviting someone new to join festivities.\n\n6. **Music & Dance Festivals:** Local performances showcase a variety of musical styles and dances from different parts of the world, emphasizing shared joy and creativity.\n\n7. **Educational Workshops:** Interactive sessions teach about various cultures’ histories, traditions, and celebrations, fostering respect and knowledge.\n\n**Overall Spirit:** Harmony Day aims to create a sense of global community, reminding everyone that despite our differences, we are all connected through shared human experiences and mutual respect.";

const XAI_THINKING =
  'First, the user is asking about the weather in San Francisco. I have a available function called "weather" that retrieves the weather for a given location.\n\nThe function requires a parameter: "location", which is a string. The user has provided "San Francisco" as the location, so that\'s clear and inferable.\n\nI should call this function to get the weather information. The format for calling the function is specific: I need to use <function_call> tags with JSON inside, like <function_call>{"action": "weather", "action_input": {"location": "San Francisco"}}</function_call>.\n\nThis seems to be a direct match, so I don\'t need to ask for clarification. My response should only contain the function call if that\'s the next step, which it is.\n\nThe instructions say: "Keep your response to user clear; please do not make your response verbose!" So, I shouldn\'t add any extra text; just the function call.\n\nFinally, after calling the function, if this were a multi-turn conversation, I might need to respond based on the result, but for now, this is the logical next step.';

const DEEPSEEK_THINKING =
  'The user is asking for the weather in San Francisco. I need to use the weather tool to get this information. Let me invoke the weather tool with the location parameter set to "San Francisco".';

/** Hand-written from reading each capture. */
const EXPECTED: Record<string, Expected> = {
  "openai-text.chunks.txt": {
    content: [{ type: "text", text: OPENAI_TEXT }],
    stopReason: "stop",
    usage: { input: 16, output: 300, cacheRead: 0, cacheWrite: 0, totalTokens: 316 },
    responseId: "chatcmpl-D8Z5oo6uDh67AD85p73ksdT1KxhE0",
  },
  // First chunk has an empty id and no choices; reasoning tokens (64) are inside completion_tokens.
  "azure-model-router.1.chunks.txt": {
    content: [{ type: "text", text: "Capital of Denmark." }],
    stopReason: "stop",
    usage: { input: 15, output: 78, cacheRead: 0, cacheWrite: 0, totalTokens: 93 },
    responseId: "chatcmpl-CYPS1lijGoK8gd9lYzY3r9Sx50nbt",
  },
  // 306 of 307 prompt tokens cached; xAI counts the 227 reasoning tokens outside completion_tokens (26).
  "xai-tool-call.chunks.txt": {
    content: [
      { type: "thinking", thinking: XAI_THINKING },
      { type: "toolCall", id: "call_79382389", name: "weather", arguments: { location: "San Francisco" } },
    ],
    stopReason: "toolUse",
    usage: { input: 1, output: 253, cacheRead: 306, cacheWrite: 0, totalTokens: 560 },
    responseId: "7027d986-3c59-a37a-9a5f-50713e01c8a6",
  },
  // Tool call index starts at 1; no usage sent.
  "anthropic-fallback-tool-call.sse": {
    content: [
      { type: "text", text: "Reading it." },
      { type: "toolCall", id: "toolu_sanitized", name: "read_file", arguments: { path: "a.txt" } },
    ],
    stopReason: "toolUse",
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 },
    responseId: "msg_sanitized",
  },
  "deepseek-tool-call.chunks.txt": {
    content: [
      { type: "thinking", thinking: DEEPSEEK_THINKING },
      {
        type: "toolCall",
        id: "call_00_ioIn7yN9p1ZOMNpDLwd4MgAF",
        name: "weather",
        arguments: { location: "San Francisco" },
      },
    ],
    stopReason: "toolUse",
    usage: { input: 19, output: 83, cacheRead: 320, cacheWrite: 0, totalTokens: 422 },
    responseId: "cca85624-4056-401f-b220-d77601d1f70d",
  },
  "groq-tool-call.chunks.txt": {
    content: [{ type: "toolCall", id: "tk85n1k4m", name: "weather", arguments: {} }],
    stopReason: "toolUse",
    usage: { input: 210, output: 15, cacheRead: 0, cacheWrite: 0, totalTokens: 225 },
    responseId: "chatcmpl-b610d559-f156-4aca-8827-24b4fe6af54f",
  },
  "mistral-tool-call.chunks.txt": {
    content: [
      { type: "toolCall", id: "gSIMJiOkT", name: "weather", arguments: { location: "San Francisco" } },
    ],
    stopReason: "toolUse",
    usage: { input: 124, output: 22, cacheRead: 0, cacheWrite: 0, totalTokens: 146 },
    responseId: "b3999b8c93e04e11bcbff7bcab829667",
  },
  "mistral-reasoning.chunks.txt": {
    content: [
      { type: "thinking", thinking: "The user is asking for 2+2. This is basic arithmetic. 2+2=4." },
      { type: "text", text: "2 + 2 = 4" },
    ],
    stopReason: "stop",
    usage: { input: 10, output: 46, cacheRead: 0, cacheWrite: 0, totalTokens: 56 },
    responseId: "a4e29c5b82f94d67b23e108a7c9df6e1",
  },
};

/** The .sse capture is raw bytes; the others are payload lines. */
function sseBody(file: string): string {
  return file.endsWith(".sse")
    ? fixtureText(`${DIR}/${file}`)
    : completionsSse(fixtureLines(`${DIR}/${file}`));
}

let server: ScriptServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("openai-completions conformance (captured streams)", () => {
  it("has an expectation for every capture in the folder", () => {
    const files = readdirSync(new URL(`./fixtures/provider-streams/${DIR}/`, import.meta.url)).sort();
    expect(files).toEqual(Object.keys(EXPECTED).sort());
  });

  for (const [file, expected] of Object.entries(EXPECTED)) {
    it(`assembles ${file}`, async () => {
      server = await serveScript([{ kind: "sse", body: sseBody(file) }]);
      const message = await run(completionsModel(server.baseUrl));
      expect(summary(message)).toEqual(expected);
      expect(message.errorMessage).toBeUndefined();
      expect(server.requests).toHaveLength(1);
    });

    it(`assembles ${file} re-chunked at random byte boundaries`, async () => {
      const body = sseBody(file);
      server = await serveScript();
      const live = server;
      await atAnyByteBoundaries(live, body, async () => {
        expect(summary(await run(completionsModel(live.baseUrl)))).toEqual(expected);
      });
    });
  }
});

describe("openai-completions request", () => {
  const weatherTool = {
    name: "weather",
    description: "Get the weather for a location",
    parameters: { type: "object", properties: { location: { type: "string" } }, required: ["location"] },
  };

  it("sends the system prompt, messages, tools, usage request and headers", async () => {
    server = await serveScript([{ kind: "sse", body: sseBody("groq-tool-call.chunks.txt") }]);
    const payloads: unknown[] = [];
    const model = completionsModel(server.baseUrl, { headers: { "x-model-header": "m" } });
    await run(
      model,
      { systemPrompt: "You are terse.", tools: [weatherTool], messages: ask.messages },
      {
        apiKey: "test-key",
        headers: { "x-option-header": "o" },
        maxTokens: 256,
        temperature: 0.2,
        onPayload: (payload) => payloads.push(payload),
      },
    );
    const request = server.requests[0]!;
    expect(request.method).toBe("POST");
    expect(request.url).toBe("/v1/chat/completions");
    expect(request.headers.authorization).toBe("Bearer test-key");
    expect(request.headers["x-model-header"]).toBe("m");
    expect(request.headers["x-option-header"]).toBe("o");
    const expectedBody = {
      model: "test-model",
      messages: [
        { role: "system", content: "You are terse." },
        { role: "user", content: "What is the weather in San Francisco?" },
      ],
      stream: true,
      stream_options: { include_usage: true },
      tools: [
        {
          type: "function",
          function: {
            name: "weather",
            description: "Get the weather for a location",
            parameters: {
              type: "object",
              properties: { location: { type: "string" } },
              required: ["location"],
            },
          },
        },
      ],
      max_completion_tokens: 256,
      temperature: 0.2,
    };
    expect(request.body).toEqual(expectedBody);
    expect(payloads).toEqual([expectedBody]);
  });

  it("adapts options to compatible servers: max_tokens, no stream_options for Mistral, tool choice, formats", async () => {
    server = await serveScript([
      { kind: "sse", body: sseBody("mistral-tool-call.chunks.txt") },
      { kind: "sse", body: sseBody("groq-tool-call.chunks.txt") },
    ]);
    const context = { tools: [weatherTool], messages: ask.messages };
    await run(completionsModel(server.baseUrl, { provider: "mistral" }), context, {
      apiKey: "k",
      maxTokens: 100,
      toolChoice: { name: "weather" },
      responseFormat: { type: "json_object" },
      reasoning: "high", // not a reasoning model: not sent
    });
    const reasoningModel = completionsModel(server.baseUrl, {
      provider: "groq",
      abilities: { toolCall: true, jsonMode: true, reasoning: true, images: false },
    });
    await run(reasoningModel, context, {
      apiKey: "k",
      toolChoice: "required",
      reasoning: "minimal",
      responseFormat: { type: "json_schema", name: "answer", schema: { type: "object" }, strict: true },
    });
    const [mistral, groq] = server.requests.map((request) => request.body as Record<string, unknown>);
    expect(mistral).toMatchObject({
      max_tokens: 100,
      tool_choice: { type: "function", function: { name: "weather" } },
      response_format: { type: "json_object" },
    });
    expect(mistral).not.toHaveProperty("stream_options");
    expect(mistral).not.toHaveProperty("max_completion_tokens");
    expect(mistral).not.toHaveProperty("reasoning_effort");
    expect(groq).toMatchObject({
      stream_options: { include_usage: true },
      tool_choice: "required",
      reasoning_effort: "low",
      response_format: {
        type: "json_schema",
        json_schema: { name: "answer", schema: { type: "object" }, strict: true },
      },
    });
  });

  it("converts a multi-turn transcript: images, tool calls, results, a dangling call", async () => {
    server = await serveScript([{ kind: "sse", body: sseBody("azure-model-router.1.chunks.txt") }]);
    const png = { type: "image" as const, data: "aGVsbG8=", mimeType: "image/png" };
    const context: Context = {
      messages: [
        { role: "user", content: [{ type: "text", text: "What is in a.png?" }, png], timestamp: 1 },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "I should look." },
            { type: "text", text: "Let me check." },
            { type: "toolCall", id: "call_1", name: "weather", arguments: { location: "Paris" } },
            { type: "toolCall", id: "call_2", name: "read_file", arguments: { path: "a.png" } },
            { type: "toolCall", id: "call_3", name: "weather", arguments: {} },
          ],
          api: "openai-completions",
          provider: "openai",
          model: "test-model",
          usage: emptyUsage(),
          stopReason: "toolUse",
          timestamp: 2,
        },
        {
          role: "toolResult",
          toolCallId: "call_1",
          toolName: "weather",
          content: [{ type: "text", text: "Sunny" }],
          isError: false,
          timestamp: 3,
        },
        {
          role: "toolResult",
          toolCallId: "call_2",
          toolName: "read_file",
          content: [{ type: "text", text: "Here it is" }, png],
          isError: false,
          timestamp: 4,
        },
        { role: "user", content: "Thanks", timestamp: 5 },
      ],
    };
    await run(completionsModel(server.baseUrl), context);
    const body = server.requests[0]!.body as { messages: unknown };
    const imageUrl = { type: "image_url", image_url: { url: "data:image/png;base64,aGVsbG8=" } };
    expect(body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "What is in a.png?" }, imageUrl] },
      {
        role: "assistant",
        content: "Let me check.",
        tool_calls: [
          {
            id: "call_1",
            type: "function",
            function: { name: "weather", arguments: '{"location":"Paris"}' },
          },
          { id: "call_2", type: "function", function: { name: "read_file", arguments: '{"path":"a.png"}' } },
          { id: "call_3", type: "function", function: { name: "weather", arguments: "{}" } },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: "Sunny" },
      { role: "tool", tool_call_id: "call_2", content: "Here it is" },
      { role: "tool", tool_call_id: "call_3", content: "Tool call was interrupted: no result was recorded." },
      {
        role: "user",
        content: [{ type: "text", text: "Images returned by the tool calls above:" }, imageUrl],
      },
      { role: "user", content: "Thanks" },
    ]);
  });
});

/** A hand-made stream whose content deltas are exactly `deltas`, then a stop. */
function contentStream(deltas: string[]): string {
  const chunk = (delta: object, finish: string | null = null) =>
    JSON.stringify({ id: "chatcmpl-think", choices: [{ index: 0, delta, finish_reason: finish }] });
  return completionsSse([...deltas.map((content) => chunk({ content })), chunk({}, "stop")]);
}

describe("openai-completions tool-call deltas from compatible servers", () => {
  it("joins continuations with empty id/name, splits calls that reuse an index, follows index-less deltas", async () => {
    const chunk = (delta: object, extra: object = {}) =>
      JSON.stringify({ id: "chatcmpl-calls", choices: [{ index: 0, delta, finish_reason: null }], ...extra });
    const calls = (...list: object[]) => chunk({ tool_calls: list });
    const body = completionsSse([
      chunk({ role: "assistant", reasoning: "Plan." }),
      calls({ index: 0, id: "call_a", type: "function", function: { name: "read", arguments: "" } }),
      calls({ index: 0, id: "", type: "function", function: { name: "", arguments: '{"path":' } }),
      calls({ index: 0, function: { arguments: '"a.txt"}' } }),
      // Some servers number every call 0: a new id means a new call.
      calls({ index: 0, id: "call_b", type: "function", function: { name: "list", arguments: "{}" } }),
      // Mistral style: no index, no type; an id-less delta continues the latest call.
      calls({ id: "call_c", function: { name: "grep", arguments: '{"q":' } }),
      calls({ function: { arguments: '"x"}' } }),
      JSON.stringify({
        id: "chatcmpl-calls",
        choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }],
        usage: { prompt_tokens: 10, completion_tokens: 5, prompt_cache_hit_tokens: 4 },
      }),
    ]);
    server = await serveScript([{ kind: "sse", body }]);
    const message = await run(completionsModel(server.baseUrl));
    expect(summary(message)).toEqual({
      content: [
        { type: "thinking", thinking: "Plan." },
        { type: "toolCall", id: "call_a", name: "read", arguments: { path: "a.txt" } },
        { type: "toolCall", id: "call_b", name: "list", arguments: {} },
        { type: "toolCall", id: "call_c", name: "grep", arguments: { q: "x" } },
      ],
      stopReason: "toolUse",
      usage: { input: 6, output: 5, cacheRead: 4, cacheWrite: 0, totalTokens: 15 },
      responseId: "chatcmpl-calls",
    });
  });
});

describe("openai-completions <think> tags in content", () => {
  it("splits thinking from text when the tags are cut across deltas", async () => {
    server = await serveScript([
      {
        kind: "sse",
        body: contentStream([
          "<thi",
          "nk>\nThe user",
          " wants 2+2.\n</th",
          "ink>\n\n2 + 2",
          " = 4, and 1 < 2.",
        ]),
      },
    ]);
    const message = await run(completionsModel(server.baseUrl));
    expect(message.content).toEqual([
      { type: "thinking", thinking: "The user wants 2+2." },
      { type: "text", text: "2 + 2 = 4, and 1 < 2." },
    ]);
    expect(message.stopReason).toBe("stop");
  });

  it("gives the same message however the content is split into deltas", async () => {
    const content = "<think>\nThe user wants 2+2.\nEasy.\n</think>\n\n2 + 2 = 4, and 1 < 2 <th";
    server = await serveScript();
    const live = server;
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.integer({ min: 1, max: content.length - 1 }), { maxLength: 12 }),
        async (cuts) => {
          const points = [0, ...cuts.sort((a, b) => a - b), content.length];
          const deltas = points.slice(1).map((end, i) => content.slice(points[i], end));
          live.push({ kind: "sse", body: contentStream(deltas) });
          const message = await run(completionsModel(live.baseUrl));
          expect(message.content).toEqual([
            { type: "thinking", thinking: "The user wants 2+2.\nEasy." },
            { type: "text", text: "2 + 2 = 4, and 1 < 2 <th" },
          ]);
        },
      ),
      { numRuns: 30 },
    );
  });
});
