import type { Message } from "@tern/ai";
import { createFaux, fauxToolCall } from "@tern/ai/testing";
import { describe, expect, it } from "vitest";
import { type AgentEvent, type AgentMessage, agentLoop, agentLoopContinue } from "../src/index.js";
import {
  collect,
  echoTool,
  expectValidTranscript,
  outline,
  textOf,
  timedTool,
  tracker,
  user,
} from "./helpers.js";

declare module "../src/types.js" {
  interface CustomAgentMessages {
    note: { role: "note"; text: string; timestamp: number };
  }
}

describe("steering and follow-ups", () => {
  it("injects a steering message after the whole batch, before the next model call", async () => {
    const t = tracker();
    const queue: AgentMessage[] = [];
    let polls = 0;
    const faux = createFaux({
      replies: [
        {
          content: [
            fauxToolCall("wait", { ms: 30, tag: "a" }, "a"),
            fauxToolCall("wait", { ms: 10, tag: "b" }, "b"),
          ],
        },
        "steered",
      ],
    });
    const stream = agentLoop(
      [user("go")],
      { messages: [], tools: [timedTool("wait", t)] },
      {
        model: faux.model,
        getSteeringMessages: () => {
          polls++;
          return queue.splice(0);
        },
      },
    );
    const events: AgentEvent[] = [];
    for await (const event of stream) {
      events.push(event);
      // The user types while the first tool is still running.
      if (event.type === "tool_execution_end" && event.toolCallId === "b") queue.push(user("use plan B"));
    }
    expect(t.order).toEqual(["b", "a"]);
    expect(faux.requests[1]!.context.messages.map((m) => `${m.role}:${textOf(m)}`)).toEqual([
      "user:go",
      "assistant:",
      "toolResult:done a",
      "toolResult:done b",
      "user:use plan B",
    ]);
    const lines = outline(events);
    expect(lines.slice(lines.indexOf("turn_end") + 1, lines.indexOf("turn_end") + 5)).toEqual([
      "turn_start",
      "inject:steering",
      "message_start:user",
      "message_end:user",
    ]);
    expect(events.find((e) => e.type === "inject")).toMatchObject({
      kind: "steering",
      content: "use plan B",
    });
    expect(polls).toBe(3); // at the start, after turn 1, after turn 2
  });

  it("keeps going when steering arrives after a text-only answer", async () => {
    const faux = createFaux({ replies: ["first", "second"] });
    let sent = false;
    const outcome = await agentLoop(
      [user("go")],
      { messages: [] },
      {
        model: faux.model,
        getSteeringMessages: () => {
          if (faux.requests.length === 1 && !sent) {
            sent = true;
            return [user("also this")];
          }
          return [];
        },
      },
    ).result();
    expect(outcome).toMatchObject({ answer: "second", iterations: 2 });
  });

  it("delivers follow-ups only when the agent would stop", async () => {
    const faux = createFaux({
      replies: [{ content: [fauxToolCall("echo", { text: "x" }, "e")] }, "first answer", "second answer"],
    });
    const followUps: AgentMessage[] = [user("and then?")];
    const asked: number[] = [];
    const events = await collect(
      agentLoop(
        [user("go")],
        { messages: [], tools: [echoTool()] },
        {
          model: faux.model,
          getFollowUpMessages: () => {
            asked.push(faux.requests.length);
            return followUps.splice(0);
          },
        },
      ),
    );
    // Not polled after the tool turn, only after each would-be end.
    expect(asked).toEqual([2, 3]);
    expect(faux.requests[2]!.context.messages.at(-1)).toMatchObject({ role: "user", content: "and then?" });
    expect(events.filter((e) => e.type === "inject")).toMatchObject([
      { kind: "follow_up", content: "and then?" },
    ]);
    const end = events.at(-1) as Extract<AgentEvent, { type: "agent_end" }>;
    expect(end).toMatchObject({ answer: "second answer", iterations: 3, stopReason: "stop" });
  });
});

describe("per-turn seams", () => {
  it("runs transformContext before convertToLlm and sends what convertToLlm returns", async () => {
    const faux = createFaux({ replies: ["ok"] });
    const calls: string[] = [];
    const note: AgentMessage = { role: "note", text: "internal", timestamp: 0 };
    await agentLoop(
      [user("question")],
      { messages: [note] },
      {
        model: faux.model,
        transformContext: (messages) => {
          calls.push(`transform:${messages.length}`);
          return [user("pinned goal"), ...messages];
        },
        convertToLlm: (messages) => {
          calls.push(`convert:${messages.length}`);
          return messages.filter((m): m is Message => m.role !== "note");
        },
      },
    ).result();
    expect(calls).toEqual(["transform:2", "convert:3"]);
    expect(faux.requests[0]!.context.messages.map((m) => textOf(m))).toEqual(["pinned goal", "question"]);
  });

  it("drops custom messages with the default convertToLlm", async () => {
    const faux = createFaux({ replies: ["ok"] });
    await agentLoop(
      [user("q")],
      { messages: [{ role: "note", text: "n", timestamp: 0 }] },
      { model: faux.model },
    ).result();
    expect(faux.requests[0]!.context.messages).toEqual([user("q")]);
  });

  it("lets prepareNextTurn switch the model, the system prompt, the thinking level and the messages", async () => {
    const first = createFaux({ replies: [{ content: [fauxToolCall("echo", { text: "x" }, "e")] }] });
    const second = createFaux({ replies: ["from the second model"] });
    const seen: number[] = [];
    const stream = agentLoop(
      [user("go")],
      { systemPrompt: "prompt one", messages: [], tools: [echoTool()] },
      {
        model: first.model,
        prepareNextTurn: ({ turn, messages }) => {
          seen.push(turn);
          if (turn === 1) return undefined;
          return {
            model: second.model,
            systemPrompt: "prompt two",
            thinkingLevel: "high",
            messages: [user("summary of earlier work"), ...messages.slice(1)],
          };
        },
      },
    );
    const events = await collect(stream);
    expect(seen).toEqual([1, 2]);
    expect(first.requests).toHaveLength(1);
    expect(first.requests[0]!.options.reasoning).toBe("off");
    const request = second.requests[0]!;
    expect(request.context.systemPrompt).toBe("prompt two");
    expect(request.options.reasoning).toBe("high");
    expect(request.context.messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult"]);
    expect(textOf(request.context.messages[0])).toBe("summary of earlier work");
    const update = events.find((e) => e.type === "context_update");
    expect(update).toMatchObject({
      model: { id: second.model.id },
      systemPrompt: "prompt two",
      thinkingLevel: "high",
    });
    const calls = events.flatMap((e) => (e.type === "model_call_start" ? [e.model] : []));
    expect(calls).toEqual([first.model.id, second.model.id]);
    expect((await stream.result()).answer).toBe("from the second model");
  });

  it("stops after a turn when shouldStopAfterTurn says so", async () => {
    const faux = createFaux({ replies: [{ content: [fauxToolCall("echo", { text: "x" }, "e")] }, "unused"] });
    const outcome = await agentLoop(
      [user("go")],
      { messages: [], tools: [echoTool()] },
      {
        model: faux.model,
        shouldStopAfterTurn: ({ turn, toolResults }) => turn === 1 && toolResults.length === 1,
      },
    ).result();
    expect(outcome.stopReason).toBe("stopped_by_caller");
    expect(faux.requests).toHaveLength(1);
    expectValidTranscript(outcome.messages);
  });

  it("ends a turn whose seam throws like a failed model call", async () => {
    const faux = createFaux({ replies: ["unused"] });
    const events = await collect(
      agentLoop(
        [user("go")],
        { messages: [] },
        {
          model: faux.model,
          transformContext: () => {
            throw new RangeError("bad window");
          },
        },
      ),
    );
    expect(faux.requests).toHaveLength(0);
    const end = events.at(-1) as Extract<AgentEvent, { type: "agent_end" }>;
    expect(end.stopReason).toBe("error");
    expect(end.errorMessage).toBe("Preparing the turn failed: RangeError: bad window");
    expect(outline(events).slice(-4)).toEqual([
      "message_start:assistant",
      "message_end:assistant",
      "turn_end",
      "agent_end",
    ]);
  });
});

describe("failures and abort", () => {
  it("ends the run with stop reason error when the model call fails", async () => {
    const faux = createFaux({
      replies: [
        { content: [fauxToolCall("echo", { text: "x" }, "e")], error: { kind: "auth", message: "bad key" } },
      ],
    });
    const outcome = await agentLoop(
      [user("go")],
      { messages: [], tools: [echoTool()] },
      { model: faux.model },
    ).result();
    expect(outcome).toMatchObject({ stopReason: "error", errorMessage: "bad key" });
    // The half-streamed call was not run, but it has a result, so the transcript can be replayed.
    expectValidTranscript(outcome.messages);
    expect(textOf(outcome.messages.at(-1))).toBe("This tool call was not executed: the model call failed.");
  });

  it("aborts during streaming and keeps the partial message", async () => {
    const faux = createFaux({ replies: ["one two three four five six"], tokenDelayMs: 2, chunkSize: 2 });
    const controller = new AbortController();
    const stream = agentLoop([user("go")], { messages: [] }, { model: faux.model }, controller.signal);
    let deltas = 0;
    for await (const event of stream) {
      if (event.type === "message_update" && event.assistantEvent.type === "text_delta" && ++deltas === 3) {
        controller.abort();
      }
    }
    const outcome = await stream.result();
    expect(outcome.stopReason).toBe("aborted");
    const last = outcome.messages.at(-1);
    expect(last).toMatchObject({ role: "assistant", stopReason: "aborted" });
    expect(textOf(last)).toBe("one tw");
  });

  it("aborts while a tool call streams and answers that call", async () => {
    const faux = createFaux({
      replies: [{ content: [fauxToolCall("echo", { text: "a long argument" }, "t")] }],
      tokenDelayMs: 2,
      chunkSize: 3,
    });
    const controller = new AbortController();
    const stream = agentLoop(
      [user("go")],
      { messages: [], tools: [echoTool()] },
      { model: faux.model },
      controller.signal,
    );
    for await (const event of stream) {
      if (event.type === "message_update" && event.assistantEvent.type === "toolcall_delta")
        controller.abort();
    }
    const outcome = await stream.result();
    expect(outcome.stopReason).toBe("aborted");
    expectValidTranscript(outcome.messages);
    expect(textOf(outcome.messages.at(-1))).toBe(
      "This tool call was not executed: the model response was aborted.",
    );
  });

  it("aborts during a long tool: the signal reaches each tool and every call gets a result", async () => {
    const signals: AbortSignal[] = [];
    // Ignores its signal and settles only when the test releases it, after the run has ended.
    let release = () => {};
    const stubborn = {
      name: "stubborn",
      description: "ignores abort",
      parameters: { type: "object" },
      execute: (_: unknown, { signal }: { signal: AbortSignal }) => {
        signals.push(signal);
        return new Promise<string>((resolve) => {
          release = () => resolve("late");
        });
      },
    };
    const t = tracker();
    const faux = createFaux({
      replies: [
        {
          content: [
            // Longer than the test's timeout: a run that waited for it would hang the test.
            fauxToolCall("wait", { ms: 60_000, tag: "long" }, "w"),
            fauxToolCall("stubborn", {}, "s"),
            fauxToolCall("echo", { text: "quick" }, "q"),
          ],
        },
        "never asked",
      ],
    });
    const controller = new AbortController();
    const stream = agentLoop(
      [user("go")],
      { messages: [], tools: [timedTool("wait", t), stubborn, echoTool()] },
      {
        model: faux.model,
      },
      controller.signal,
    );
    const events: AgentEvent[] = [];
    for await (const event of stream) {
      events.push(event);
      if (event.type === "tool_execution_end" && event.toolCallId === "q")
        setTimeout(() => controller.abort(), 10);
    }
    const outcome = await stream.result();
    // The run ended while the stubborn tool was still pending and the waiting one was cut short.
    release();
    expect(t.order).toEqual([]);
    expect(outcome.stopReason).toBe("aborted");
    expect(signals[0]!.aborted).toBe(true);
    expect(faux.requests).toHaveLength(1);
    expectValidTranscript(outcome.messages);
    const resultTexts = outcome.messages.slice(2).map((m) => textOf(m));
    expect(resultTexts[2]).toBe("echo: quick");
    expect(resultTexts[1]).toBe("Tool execution was aborted.");
    // The waiting tool honoured its signal; either way its call is answered as an error.
    expect(outcome.messages.slice(2, 4).every((m) => (m as { isError: boolean }).isError)).toBe(true);
    // Listeners see every started call end.
    expect(
      events
        .filter((e) => e.type === "tool_execution_end")
        .map((e) => (e as { toolCallId: string }).toolCallId)
        .sort(),
    ).toEqual(["q", "s", "w"]);
  });

  it("does not run anything after an abort before the run starts", async () => {
    const faux = createFaux({ replies: ["unused"] });
    const controller = new AbortController();
    controller.abort();
    const outcome = await agentLoop(
      [user("go")],
      { messages: [] },
      { model: faux.model },
      controller.signal,
    ).result();
    expect(outcome.stopReason).toBe("aborted");
    expect(faux.pending).toBe(1);
  });
});

describe("agentLoopContinue", () => {
  const faux = createFaux();

  it("refuses an empty context", () => {
    expect(() => agentLoopContinue({ messages: [] }, { model: faux.model })).toThrow(
      /the context has no messages/,
    );
  });

  it("refuses a context that ends with an assistant message", () => {
    const assistant = {
      role: "assistant",
      content: [],
      api: "faux",
      provider: "faux",
      model: "x",
      stopReason: "stop",
      timestamp: 0,
    };
    expect(() =>
      agentLoopContinue({ messages: [user("hi"), assistant as unknown as Message] }, { model: faux.model }),
    ).toThrow(/last message is an assistant message/);
    expect(faux.requests).toHaveLength(0);
  });

  it("continues from tool results without adding a prompt", async () => {
    const own = createFaux({ replies: [{ content: [fauxToolCall("echo", { text: "x" }, "e")] }, "answer"] });
    const first = await agentLoop(
      [user("go")],
      { messages: [], tools: [echoTool()] },
      {
        model: own.model,
        shouldStopAfterTurn: () => true,
      },
    ).result();
    const context = { messages: first.messages, tools: [echoTool()] };
    const events = await collect(agentLoopContinue(context, { model: own.model }));
    expect(outline(events).slice(0, 4)).toEqual([
      "agent_start",
      "turn_start",
      "model_call_start",
      "message_start:assistant",
    ]);
    const end = events.at(-1) as Extract<AgentEvent, { type: "agent_end" }>;
    expect(end.messages.map((m) => (m as Message).role)).toEqual(["assistant"]);
    expect(end.answer).toBe("answer");
    expect(own.requests[1]!.context.messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult"]);
  });

  it("continues from a trailing user message", async () => {
    const own = createFaux({ replies: ["hi there"] });
    const outcome = await agentLoopContinue({ messages: [user("hello")] }, { model: own.model }).result();
    expect(outcome).toMatchObject({ answer: "hi there", stopReason: "stop" });
  });
});
