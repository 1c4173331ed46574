import type { Message } from "@tern/ai";
import { createFaux, fauxText, fauxThinking } from "@tern/ai/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { AgentTool } from "../../src/index.js";
import { iterationLimit } from "../../src/policies/iteration-limit.js";
import { REFORMAT_REQUEST, toolModePolicy } from "../../src/policies/json-mode.js";
import { echoTool, expectValidTranscript, textOf } from "../helpers.js";
import { fauxFor, injects, ofType, run } from "./support.js";

const boom: AgentTool<Record<string, never>> = {
  name: "boom",
  description: "Always fails",
  parameters: z.object({}),
  execute: () => {
    throw new Error("kaput");
  },
};

function ping(log: unknown[]): AgentTool<Record<string, never>> {
  return {
    name: "ping",
    description: "Answers pong",
    parameters: z.object({}),
    execute: (args) => {
      log.push(args);
      return "pong";
    },
  };
}

const roles = (messages: readonly unknown[]) => messages.map((m) => (m as Message).role);

describe("JSON mode", () => {
  it("answers at once: catalog and protocol in the system prompt, no native tools sent", async () => {
    const faux = fauxFor("json", ['{"type":"final_answer","reasoning":"easy","answer":"42"}']);
    const { result } = await run(faux, [echoTool()], []);
    expect(result).toMatchObject({ answer: "42", stopReason: "stop", iterations: 1 });
    const request = faux.requests[0]!;
    expect(request.context.tools).toBeUndefined();
    const system = request.context.systemPrompt!;
    expect(system.startsWith("You are helpful.\n\n# How to reply")).toBe(true);
    expect(system).toContain(
      '{"type": "tool_call", "reasoning": "<why this step>", "tool_name": "<tool name>"',
    );
    expect(system).toContain("## echo\nEcho the text back\nArguments (JSON Schema): {");
    expect(request.options.responseFormat).toEqual({ type: "json_object" });
    expect(result.messages.at(-1)).toMatchObject({
      role: "assistant",
      content: [{ type: "text", text: "42" }],
    });
  });

  it("runs a tool, then answers; the history is replayed in protocol form", async () => {
    const log: string[] = [];
    const faux = fauxFor("json", [
      '{"type":"tool_call","reasoning":"need an echo","tool_name":"echo","tool_args":{"text":"hi"}}',
      '{"type":"final_answer","reasoning":"got it","answer":"It said hi"}',
    ]);
    const { result, events } = await run(faux, [echoTool(log)], []);
    expect(log).toEqual(["hi"]);
    expect(result).toMatchObject({ answer: "It said hi", iterations: 2 });
    expect(roles(result.messages)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    expectValidTranscript(result.messages);
    // The loop got an ordinary tool-call part, with the reasoning as text before it.
    expect(result.messages[1]).toMatchObject({
      content: [
        { type: "text", text: "need an echo" },
        { type: "toolCall", name: "echo", arguments: { text: "hi" } },
      ],
      stopReason: "toolUse",
    });
    expect(ofType(events, "tool_execution_end")[0]).toMatchObject({ toolName: "echo", isError: false });
    const second = faux.requests[1]!.context.messages;
    expect(second.map((m) => `${m.role}:${textOf(m)}`)).toEqual([
      "user:What is the answer?",
      'assistant:{"type":"tool_call","reasoning":"need an echo","tool_name":"echo","tool_args":{"text":"hi"}}',
      "user:[Tool result] echo\necho: hi",
    ]);
  });

  it("does not stream the raw JSON as text", async () => {
    const faux = fauxFor("json", ['{"type":"final_answer","reasoning":"r","answer":"plain words"}']);
    const { events } = await run(faux, [echoTool()], []);
    const deltas = ofType(events, "message_update").flatMap((e) =>
      e.assistantEvent.type === "text_delta" ? [e.assistantEvent.delta] : [],
    );
    expect(deltas.join("")).toBe("plain words");
  });

  it("reports an unknown tool back to the model", async () => {
    const faux = fauxFor("json", [
      '{"type":"tool_call","reasoning":"r","tool_name":"nope","tool_args":{}}',
      '{"type":"final_answer","reasoning":"r","answer":"sorry"}',
    ]);
    const { result } = await run(faux, [echoTool()], []);
    expect(result.answer).toBe("sorry");
    expect(textOf(faux.requests[1]!.context.messages.at(-1))).toBe(
      '[Tool error] nope\nTool "nope" not found. Available tools: echo.',
    );
  });

  it("reports a throwing tool back to the model", async () => {
    const faux = fauxFor("json", [
      '{"type":"tool_call","reasoning":"r","tool_name":"boom","tool_args":{}}',
      '{"type":"final_answer","reasoning":"r","answer":"it failed"}',
    ]);
    const { result } = await run(faux, [boom], []);
    expect(result.answer).toBe("it failed");
    expect(textOf(faux.requests[1]!.context.messages.at(-1))).toBe("[Tool error] boom\nError: kaput");
  });

  it("asks once for a reformat after unparsable output, and the retry counts as an iteration", async () => {
    const faux = fauxFor("json", [
      "I think it is 42.",
      '{"type":"final_answer","reasoning":"r","answer":"42"}',
    ]);
    const { result, events } = await run(faux, [echoTool()], []);
    expect(result).toMatchObject({ answer: "42", iterations: 2, stopReason: "stop" });
    expect(injects(events).map((e) => e.kind)).toEqual(["reformat"]);
    expect(faux.requests[1]!.context.messages.map((m) => `${m.role}:${textOf(m)}`)).toEqual([
      "user:What is the answer?",
      "assistant:I think it is 42.",
      `user:${REFORMAT_REQUEST}`,
    ]);
  });

  it("accepts the raw text when the reply is unparsable twice", async () => {
    const faux = fauxFor("json", ["first mess", "second mess"]);
    const { result, events } = await run(faux, [echoTool()], []);
    expect(result).toMatchObject({ answer: "second mess", iterations: 2, stopReason: "stop" });
    expect(injects(events, "reformat")).toHaveLength(1);
    expect(faux.requests).toHaveLength(2);
  });

  it("treats a missing type as a final answer", async () => {
    const log: string[] = [];
    const faux = fauxFor("json", ['{"reasoning":"r","answer":"forty-two"}']);
    const { result } = await run(faux, [echoTool(log)], []);
    expect(result.answer).toBe("forty-two");
    const other = fauxFor("json", ['{"tool_name":"echo","tool_args":{"text":"x"}}']);
    const second = await run(other, [echoTool(log)], []);
    expect(second.result.answer).toBe('{"tool_name":"echo","tool_args":{"text":"x"}}');
    expect(log).toEqual([]);
  });

  it("reads null tool_args as {} and tool_args given as a JSON string", async () => {
    const log: unknown[] = [];
    const texts: string[] = [];
    const faux = fauxFor("json", [
      '{"type":"tool_call","reasoning":"","tool_name":"ping","tool_args":null}',
      '{"type":"tool_call","reasoning":"","tool_name":"echo","tool_args":"{\\"text\\":\\"s\\"}"}',
      '{"type":"final_answer","reasoning":"","answer":"done"}',
    ]);
    const { events } = await run(faux, [ping(log), echoTool(texts)], []);
    expect(log).toEqual([{}]);
    expect(texts).toEqual(["s"]);
    expect(ofType(events, "tool_execution_start").map((e) => e.args)).toEqual([{}, { text: "s" }]);
  });

  it("finds the object inside a fenced block with prose around it", async () => {
    const faux = fauxFor("json", [
      'Sure.\n```json\n{"type":"final_answer","reasoning":"r","answer":"fenced"}\n```',
    ]);
    const { result, events } = await run(faux, [echoTool()], []);
    expect(result.answer).toBe("fenced");
    expect(injects(events)).toHaveLength(0);
  });

  it("falls back to the model's own reasoning content when reasoning is empty", async () => {
    const faux = fauxFor("json", [
      {
        content: [
          fauxThinking("The echo tool fits."),
          fauxText('{"type":"tool_call","reasoning":"","tool_name":"echo","tool_args":{"text":"a"}}'),
        ],
      },
      '{"type":"final_answer","reasoning":"r","answer":"ok"}',
    ]);
    await run(faux, [echoTool()], []);
    expect(textOf(faux.requests[1]!.context.messages[1])).toBe(
      '{"type":"tool_call","reasoning":"The echo tool fits.","tool_name":"echo","tool_args":{"text":"a"}}',
    );
  });

  it("ends at the iteration cap with a summary of the tools that ran", async () => {
    const faux = fauxFor("json");
    for (let i = 0; i < 3; i++) {
      faux.push(`{"type":"tool_call","reasoning":"more","tool_name":"echo","tool_args":{"text":"${i}"}}`);
    }
    faux.push(`{"type":"tool_call","reasoning":"more","tool_name":"boom","tool_args":{}}`);
    const { result } = await run(faux, [echoTool(), boom], [iterationLimit({ maxIterations: 4 })]);
    expect(result.stopReason).toBe("max_iterations");
    expect(result.iterations).toBe(4);
    expect(faux.requests).toHaveLength(4);
    expect(result.answer).toBe(
      "I stopped after 4 steps without reaching a final answer. Tools run:\n- echo: 3 calls, all succeeded\n- boom: 1 call, failed",
    );
  });

  it("passes a failed model call through as an error", async () => {
    const faux = fauxFor("json", [{ content: '{"type":"fin', error: { kind: "server", message: "down" } }]);
    const { result } = await run(faux, [echoTool()], []);
    expect(result).toMatchObject({ stopReason: "error", errorMessage: "down" });
  });
});

describe("tool mode", () => {
  it("auto uses native tool calling when the model has it", async () => {
    const faux = createFaux({ replies: ["native answer"] });
    await run(faux, [echoTool()], []);
    expect(faux.requests[0]!.context.tools?.map((t) => t.name)).toEqual(["echo"]);
    expect(faux.requests[0]!.context.systemPrompt).toBe("You are helpful.");
  });

  it("auto uses JSON mode when useNativeTools is false, even for a tool-calling model", async () => {
    const faux = createFaux({ replies: ['{"type":"final_answer","reasoning":"","answer":"json answer"}'] });
    const { result } = await run(faux, [echoTool()], [], {
      config: { policies: [toolModePolicy({ useNativeTools: false })] },
    });
    expect(result.answer).toBe("json answer");
    expect(faux.requests[0]!.context.tools).toBeUndefined();
  });

  it("native and json force the mode whatever the model says", async () => {
    const json = createFaux({ replies: ['{"type":"final_answer","reasoning":"","answer":"a"}'] });
    await run(json, [echoTool()], [], { config: { policies: [toolModePolicy({ toolMode: "json" })] } });
    expect(json.requests[0]!.context.tools).toBeUndefined();
    const native = createFaux({ replies: ["b"], abilities: { toolCall: false } });
    await run(native, [echoTool()], [], { config: { policies: [toolModePolicy({ toolMode: "native" })] } });
    expect(native.requests[0]!.context.tools?.map((t) => t.name)).toEqual(["echo"]);
  });
});
