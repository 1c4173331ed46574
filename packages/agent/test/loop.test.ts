import type { ToolResultMessage } from "@tern/ai";
import { createFaux, fauxText, fauxToolCall } from "@tern/ai/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type AgentEvent, type AgentTool, agentLoop } from "../src/index.js";
import { collect, deterministic, echoTool, outline, textOf, types, user } from "./helpers.js";

describe("agentLoop: turns and events", () => {
  it("runs a text-only prompt with the exact event order", async () => {
    const faux = createFaux({ replies: ["Hello"] });
    const prompt = user("hi");
    const stream = agentLoop(
      [prompt],
      { systemPrompt: "be brief", messages: [] },
      {
        model: faux.model,
        ...deterministic(),
      },
    );
    const events = await collect(stream);
    expect(types(events)).toEqual([
      "agent_start",
      "turn_start",
      "message_start",
      "message_end",
      "model_call_start",
      "message_start",
      "message_update", // text_start
      "message_update", // "Hell"
      "message_update", // "o"
      "message_update", // text_end
      "message_end",
      "model_call_end",
      "turn_end",
      "agent_end",
    ]);
    expect(events[0]).toEqual({ type: "agent_start", runId: "id-1", timestamp: 1010 });
    // The run's prompt is pinned (the context guard keeps it); the model gets it without the flag.
    expect(events[2]).toEqual({ type: "message_start", message: { ...prompt, pinned: true } });
    expect(faux.requests[0]!.context.messages).toEqual([prompt]);
    expect(events[4]).toMatchObject({
      type: "model_call_start",
      callId: "id-2",
      purpose: "turn",
      model: faux.model.id,
    });
    const deltas = events.flatMap((e) =>
      e.type === "message_update" && e.assistantEvent.type === "text_delta" ? [e.assistantEvent.delta] : [],
    );
    expect(deltas).toEqual(["Hell", "o"]);

    const result = await stream.result();
    expect(result.stopReason).toBe("stop");
    expect(result.answer).toBe("Hello");
    expect(result.iterations).toBe(1);
    expect(result.messages.map((m) => (m as { role: string }).role)).toEqual(["user", "assistant"]);
    expect(events.at(-1)).toEqual({ type: "agent_end", ...result });
    expect(faux.requests[0]?.context).toEqual({ systemPrompt: "be brief", messages: [prompt] });
  });

  it("reports each retry of a model call as model_retry, inside the call", async () => {
    const faux = createFaux({
      replies: [
        { error: { kind: "rate_limit", message: "slow down", retryAfterMs: 1, status: 429 } },
        "Hello",
      ],
    });
    const stream = agentLoop(
      [user("hi")],
      { messages: [] },
      { model: faux.model, streamOptions: { retry: { maxRetries: 2 } }, ...deterministic() },
    );
    const events = await collect(stream);
    const lines = outline(events);
    expect(lines.slice(lines.indexOf("model_call_start"), lines.indexOf("model_call_end") + 1)).toEqual([
      "model_call_start",
      "message_start:assistant",
      "model_retry",
      "message_update",
      "message_end:assistant",
      "model_call_end",
    ]);
    const start = events.find((e) => e.type === "model_call_start");
    expect(events.find((e) => e.type === "model_retry")).toEqual({
      type: "model_retry",
      callId: (start as { callId: string }).callId,
      purpose: "turn",
      model: faux.model.id,
      provider: faux.model.provider,
      attempt: 2,
      maxAttempts: 3,
      delayMs: 1,
      errorKind: "rate_limit",
      errorMessage: "slow down",
      status: 429,
    });
    expect((await stream.result()).answer).toBe("Hello");
  });

  it("runs a tool call, feeds the result back, then answers", async () => {
    const log: string[] = [];
    const faux = createFaux({
      replies: [
        { content: [fauxText("Let me echo."), fauxToolCall("echo", { text: "ping" }, "c1")] },
        "Done: ping",
      ],
    });
    const stream = agentLoop(
      [user("echo ping")],
      { messages: [], tools: [echoTool(log)] },
      { model: faux.model },
    );
    const events = await collect(stream);
    expect(outline(events)).toEqual([
      "agent_start",
      "turn_start",
      "message_start:user",
      "message_end:user",
      "model_call_start",
      "message_start:assistant",
      "message_update",
      "message_end:assistant",
      "model_call_end",
      "tool_execution_start:c1",
      "tool_execution_end:c1",
      "message_start:toolResult",
      "message_end:toolResult",
      "turn_end",
      "turn_start",
      "model_call_start",
      "message_start:assistant",
      "message_update",
      "message_end:assistant",
      "model_call_end",
      "turn_end",
      "agent_end",
    ]);
    expect(log).toEqual(["ping"]);
    const result = await stream.result();
    expect(result).toMatchObject({ stopReason: "stop", answer: "Done: ping", iterations: 2 });
    const second = faux.requests[1]!.context;
    expect(second.messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult"]);
    expect(second.messages[2]).toMatchObject({
      role: "toolResult",
      toolCallId: "c1",
      toolName: "echo",
      isError: false,
      content: [{ type: "text", text: "echo: ping" }],
    });
    expect(second.tools).toEqual([
      {
        name: "echo",
        description: "Echo the text back",
        parameters: {
          type: "object",
          properties: { text: { type: "string" } },
          required: ["text"],
        },
      },
    ]);
    const turnEnd = events.find((e) => e.type === "turn_end") as Extract<AgentEvent, { type: "turn_end" }>;
    expect(turnEnd.toolResults.map((r) => r.toolCallId)).toEqual(["c1"]);
  });

  it("turns an empty tool result into an explicit (no output)", async () => {
    const quiet: AgentTool<Record<string, never>> = {
      name: "quiet",
      description: "returns nothing",
      parameters: { type: "object", properties: {} },
      execute: () => undefined,
    };
    const blank: AgentTool = { ...quiet, name: "blank", execute: () => ({ content: [] }) };
    const faux = createFaux({
      replies: [{ content: [fauxToolCall("quiet", {}, "q"), fauxToolCall("blank", {}, "b")] }, "ok"],
    });
    const result = await agentLoop(
      [user("go")],
      { messages: [], tools: [quiet, blank] },
      { model: faux.model },
    ).result();
    const texts = result.messages
      .filter((m) => (m as ToolResultMessage).role === "toolResult")
      .map((m) => textOf(m));
    expect(texts).toEqual(["(no output)", "(no output)"]);
  });

  it("passes the structured details of a result to events and the transcript, not to the model text", async () => {
    const tool: AgentTool<{ n: number }, { doubled: number }> = {
      name: "double",
      description: "doubles",
      parameters: z.object({ n: z.number() }),
      execute: ({ n }) => ({ content: `${n * 2}`, details: { doubled: n * 2 } }),
    };
    const faux = createFaux({ replies: [{ content: [fauxToolCall("double", { n: 21 }, "d")] }, "42"] });
    const events = await collect(
      agentLoop([user("x")], { messages: [], tools: [tool] }, { model: faux.model }),
    );
    const end = events.find((e) => e.type === "tool_execution_end");
    expect(end).toMatchObject({ result: { details: { doubled: 42 }, isError: false }, isError: false });
    const resultMessage = events.find(
      (e) => e.type === "message_end" && (e.message as { role: string }).role === "toolResult",
    );
    expect(resultMessage).toMatchObject({
      message: { details: { doubled: 42 }, content: [{ type: "text", text: "42" }] },
    });
  });
});
