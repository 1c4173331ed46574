import { describe, expect, it } from "vitest";
import { createFaux, type FauxReply, fauxText, fauxToolCall } from "../src/providers/faux.js";
import { type StructuredAttempt, StructuredOutputError, structuredCall } from "../src/structured-call.js";
import type { AssistantContent, Context, JsonSchema } from "../src/types.js";

const person: JsonSchema = {
  type: "object",
  properties: { name: { type: "string" }, age: { type: "integer" } },
  required: ["name", "age"],
  additionalProperties: false,
};
const ada = { name: "Ada", age: 36 };

const noTools = { toolCall: false };
const textOnly = { toolCall: false, jsonMode: false };

/** A faux reply with known token counts (faux prices: $1 / M input, $2 / M output). */
function reply(content: AssistantContent[] | string, input: number, output: number): FauxReply {
  return { content, usage: { input, output } };
}

async function rejection(promise: Promise<unknown>): Promise<StructuredOutputError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StructuredOutputError);
  return error as StructuredOutputError;
}

describe("structuredCall levels", () => {
  it("succeeds at tool_call with the schema as the forced tool's parameters", async () => {
    const faux = createFaux({ replies: [reply([fauxToolCall("person", ada)], 100, 20)] });
    const result = await structuredCall(faux.model, "Who wrote the first program?", {
      schema: person,
      name: "person",
      description: "the person asked about",
    });
    expect(result.value).toEqual(ada);
    expect(result.raw).toEqual(ada);
    expect(result.level).toBe("tool_call");
    expect(result.attempts).toBe(1);
    expect(result.usage).toMatchObject({
      input: 100,
      output: 20,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 120,
    });
    expect(result.usage.cost.total).toBeCloseTo(0.00014, 12);

    const request = faux.requests[0];
    expect(request?.options.toolChoice).toEqual({ name: "person" });
    expect(request?.options.responseFormat).toBeUndefined();
    expect(request?.context.tools).toEqual([
      { name: "person", description: "the person asked about", parameters: person },
    ]);
    expect(request?.context.messages).toMatchObject([
      { role: "user", content: "Who wrote the first program?" },
    ]);
  });

  it("wraps a non-object schema as {value} for the tool and unwraps the answer", async () => {
    const list: JsonSchema = { type: "array", items: { type: "string" } };
    const faux = createFaux({ replies: [{ content: [fauxToolCall("respond", { value: ["a", "b"] })] }] });
    const result = await structuredCall<string[]>(faux.model, "List two letters", { schema: list });
    expect(result.value).toEqual(["a", "b"]);
    expect(result.raw).toEqual({ value: ["a", "b"] });
    expect(faux.requests[0]?.context.tools?.[0]?.parameters).toEqual({
      type: "object",
      properties: { value: list },
      required: ["value"],
    });
  });

  it("succeeds at json_mode on the first try", async () => {
    const faux = createFaux({ abilities: noTools, replies: [reply('{"name": "Ada", "age": 36}', 100, 20)] });
    const result = await structuredCall(faux.model, "Who?", { schema: person });
    expect(result).toMatchObject({ value: ada, raw: ada, level: "json_mode", attempts: 1 });
    const request = faux.requests[0];
    expect(request?.options.responseFormat).toEqual({ type: "json_object" });
    expect(request?.options.toolChoice).toBeUndefined();
    expect(request?.context.tools).toBeUndefined();
    expect(request?.context.systemPrompt).toContain(JSON.stringify(person));
  });

  it("succeeds at json_mode after one reformat retry that names the validation error", async () => {
    const faux = createFaux({
      abilities: noTools,
      replies: [reply('{"name": "Ada"}', 100, 20), reply('{"name": "Ada", "age": 36}', 150, 10)],
    });
    const result = await structuredCall(faux.model, "Who?", { schema: person });
    expect(result).toMatchObject({ value: ada, level: "json_mode", attempts: 2 });
    expect(result.usage).toMatchObject({ input: 250, output: 30, totalTokens: 280 });
    expect(result.usage.cost.total).toBeCloseTo(0.00031, 12);

    const retry = faux.requests[1];
    expect(retry?.options.responseFormat).toEqual({ type: "json_object" });
    const messages = retry?.context.messages ?? [];
    expect(messages).toHaveLength(3);
    expect(messages[1]).toMatchObject({
      role: "assistant",
      content: [{ type: "text", text: '{"name": "Ada"}' }],
    });
    expect(messages[2]?.role).toBe("user");
    expect(messages[2]?.content).toContain("(root) must have required property 'age'");
  });

  it("succeeds at text from a fenced block, without responseFormat", async () => {
    const faux = createFaux({
      abilities: textOnly,
      replies: ['Sure!\n```json\n{"name": "Ada", "age": 36,}\n```\nAnything else?'],
    });
    const result = await structuredCall(faux.model, "Who?", { schema: person });
    expect(result).toMatchObject({ value: ada, level: "text", attempts: 1 });
    expect(faux.requests[0]?.options.responseFormat).toBeUndefined();
    expect(faux.requests[0]?.options.toolChoice).toBeUndefined();
    expect(faux.requests[0]?.context.systemPrompt).toContain("```json");
  });

  it("takes the first candidate that validates, not just the first JSON", async () => {
    const faux = createFaux({
      abilities: textOnly,
      replies: ['Steps [1, 2] done. {"name": "Ada", "age": 36}'],
    });
    const result = await structuredCall(faux.model, "Who?", { schema: person });
    expect(result.value).toEqual(ada);
  });

  it("succeeds at text through a RegExp fallback with named groups", async () => {
    const faux = createFaux({ abilities: textOnly, replies: ["The person is Name: Ada, age 36."] });
    const result = await structuredCall(faux.model, "Who?", {
      schema: person,
      regexFallback: /Name: (?<name>\w+), age (?<age>\d+)/g,
    });
    expect(result).toMatchObject({ value: ada, raw: ada, level: "text", attempts: 1 });
  });

  it("succeeds at text through a function fallback", async () => {
    const faux = createFaux({ abilities: textOnly, replies: ["I'd say roughly 42 of them."] });
    const result = await structuredCall(faux.model, "How many?", {
      schema: { type: "integer" },
      regexFallback: (text) => Number(/(\d+)/.exec(text)?.[1]),
    });
    expect(result).toMatchObject({ value: 42, level: "text", attempts: 1 });
  });

  it("succeeds at text after one reformat retry", async () => {
    const faux = createFaux({
      abilities: textOnly,
      replies: [
        reply("I would rather describe her in words.", 100, 20),
        reply('{"name":"Ada","age":36}', 130, 5),
      ],
    });
    const result = await structuredCall(faux.model, "Who?", { schema: person });
    expect(result).toMatchObject({ value: ada, level: "text", attempts: 2 });
    expect(result.usage).toMatchObject({ input: 230, output: 25, totalTokens: 255 });
    expect(faux.requests[1]?.context.messages[2]?.content).toContain("no JSON value was found in the answer");
  });

  it("keeps the caller's system prompt and tools but forbids tool calls below tool_call", async () => {
    const other = { name: "search", description: "search the web", parameters: { type: "object" } };
    const context: Context = {
      systemPrompt: "Be terse.",
      tools: [other],
      messages: [{ role: "user", content: "Who?", timestamp: 1 }],
    };
    const faux = createFaux({
      replies: [{ content: [fauxText("I will not call tools.")] }, '{"name": "Ada", "age": 36}'],
    });
    const result = await structuredCall(faux.model, context, { schema: person });
    expect(result).toMatchObject({ value: ada, level: "json_mode", attempts: 2 });
    expect(faux.requests[0]?.context.tools?.map((t) => t.name)).toEqual(["search", "respond"]);
    expect(faux.requests[1]?.options.toolChoice).toBe("none");
    expect(faux.requests[1]?.context.tools).toEqual([other]);
    expect(faux.requests[1]?.context.systemPrompt?.startsWith("Be terse.\n\n")).toBe(true);
  });

  it("validates 2020-12 schemas with $defs and $ref", async () => {
    const schema: JsonSchema = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: { at: { $ref: "#/$defs/point" } },
      required: ["at"],
      $defs: { point: { type: "object", properties: { x: { type: "number" } }, required: ["x"] } },
    };
    const faux = createFaux({ abilities: noTools, replies: ['{"at": {"x": "left"}}', '{"at": {"x": 1.5}}'] });
    const result = await structuredCall(faux.model, "Where?", { schema });
    expect(result).toMatchObject({ value: { at: { x: 1.5 } }, level: "json_mode", attempts: 2 });
    expect(faux.requests[1]?.context.messages[2]?.content).toContain("/at/x must be number");
  });
});

/** One failing answer per call across every level: tool_call, json_mode x2, text x2. */
function failingEverywhere(): FauxReply[] {
  return [
    reply([fauxToolCall("respond", { name: 7 })], 10, 1),
    reply("not JSON at all", 20, 2),
    reply('{"name": "Ada"}', 30, 3),
    reply("still no", 40, 4),
    reply('Here: {"age": 3}', 50, 5),
  ];
}

describe("structuredCall failures", () => {
  it("falls through every level to the default, summing usage over all five calls", async () => {
    const faux = createFaux({ replies: failingEverywhere() });
    const seen: unknown[] = [];
    const started: unknown[] = [];
    const result = await structuredCall(faux.model, "Who?", {
      schema: person,
      defaultValue: { name: "unknown", age: 0 },
      onCallStart: (info) => started.push(info.attempt),
      onCall: (call: StructuredAttempt) =>
        seen.push([call.level, call.attempt, call.reformat, call.message.usage.input]),
    });
    expect(result.value).toEqual({ name: "unknown", age: 0 });
    expect(result.level).toBe("default");
    expect(result.raw).toEqual({ age: 3 });
    expect(result.attempts).toBe(5);
    expect(result.usage).toMatchObject({ input: 150, output: 15, totalTokens: 165 });
    expect(result.usage.cost.total).toBeCloseTo(0.00018, 12);
    expect(started).toEqual([1, 2, 3, 4, 5]);
    expect(seen).toEqual([
      ["tool_call", 1, false, 10],
      ["json_mode", 2, false, 20],
      ["json_mode", 3, true, 30],
      ["text", 4, false, 40],
      ["text", 5, true, 50],
    ]);
    expect(faux.pending).toBe(0);
  });

  it("rejects with a StructuredOutputError when every level failed and there is no default", async () => {
    const faux = createFaux({ replies: failingEverywhere() });
    const error = await rejection(structuredCall(faux.model, "Who?", { schema: person }));
    expect(error.reason).toBe("failed");
    expect(error.attempts).toBe(5);
    expect(error.usage).toMatchObject({ input: 150, output: 15, totalTokens: 165 });
    expect(error.lastError).toContain("(root) must have required property 'name'");
    expect(error.lastText).toBe('Here: {"age": 3}');
    expect(error.failures.map((f) => f.level)).toEqual(["tool_call", "json_mode", "text"]);
    expect(error.failures[0]?.message).toContain("/name must be string");
    expect(error.errorKind).toBeUndefined();
    expect(error.message).toContain("tool_call:");
  });

  it("moves from a provider error at tool_call to json_mode, counting the failed call", async () => {
    const faux = createFaux({
      replies: [
        { error: { kind: "server", message: "tool calling exploded" }, usage: { input: 50, output: 0 } },
        reply('{"name": "Ada", "age": 36}', 70, 9),
      ],
    });
    // retry passes through to stream(): without it the 500 would be retried on the json reply.
    const result = await structuredCall(faux.model, "Who?", { schema: person, retry: { maxRetries: 0 } });
    expect(result).toMatchObject({ value: ada, level: "json_mode", attempts: 2 });
    expect(result.usage).toMatchObject({ input: 120, output: 9, totalTokens: 129 });
    expect(faux.requests.map((r) => r.options.responseFormat)).toEqual([undefined, { type: "json_object" }]);
  });

  it("stops degrading on context overflow and reports the kind", async () => {
    const faux = createFaux({
      replies: [
        { error: { kind: "context_overflow", message: "prompt is too long" } },
        '{"name":"x","age":1}',
      ],
    });
    const error = await rejection(structuredCall(faux.model, "Who?", { schema: person }));
    expect(error.errorKind).toBe("context_overflow");
    expect(error.attempts).toBe(1);
    expect(error.lastError).toBe("provider error (context_overflow): prompt is too long");
    expect(faux.requests).toHaveLength(1);
  });

  it("rejects at once on abort mid-call, even with a default", async () => {
    const faux = createFaux({
      replies: [{ content: [fauxToolCall("respond", ada)] }, '{"name": "Ada", "age": 36}'],
      tokenDelayMs: 10,
      chunkSize: 1,
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 40);
    const error = await rejection(
      structuredCall(faux.model, "Who?", {
        schema: person,
        defaultValue: { name: "unknown", age: 0 },
        signal: controller.signal,
      }),
    );
    expect(error.reason).toBe("aborted");
    // Stopped on the aborted answer itself (the provider's message), not at the next level's start.
    expect(error.message).toContain("Request was aborted");
    expect(error.attempts).toBe(1);
    expect(faux.requests).toHaveLength(1);
    expect(faux.pending).toBe(1);
  });

  it("makes no call when the signal is already aborted", async () => {
    const faux = createFaux({ replies: ['{"name": "Ada", "age": 36}'] });
    const error = await rejection(
      structuredCall(faux.model, "Who?", { schema: person, signal: AbortSignal.abort() }),
    );
    expect(error.reason).toBe("aborted");
    expect(error.attempts).toBe(0);
    expect(error.usage.totalTokens).toBe(0);
    expect(faux.requests).toHaveLength(0);
  });

  it("rejects an invalid schema before calling the model", async () => {
    const faux = createFaux({ replies: ["{}"] });
    const error = await rejection(
      structuredCall(faux.model, "Who?", { schema: { type: "nonsense" }, defaultValue: {} }),
    );
    expect(error.reason).toBe("invalid_schema");
    expect(error.message).toContain("invalid JSON Schema");
    expect(faux.requests).toHaveLength(0);
  });

  it("ignores hooks that throw", async () => {
    const faux = createFaux({ abilities: noTools, replies: ['{"name": "Ada", "age": 36}'] });
    const result = await structuredCall(faux.model, "Who?", {
      schema: person,
      onCallStart: () => {
        throw new Error("hook");
      },
      onCall: () => {
        throw new Error("hook");
      },
    });
    expect(result.value).toEqual(ada);
  });
});
