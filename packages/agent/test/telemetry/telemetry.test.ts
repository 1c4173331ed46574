// The run's spans under a real OpenTelemetry SDK (in-memory exporter): the tree of a run with a
// compaction, parallel tools and a failed model call; content off by default and on when asked;
// every span ended on abort, on a consumer that stops reading, and on a denied tool call; nested
// runs (plan steps, sub-agents) inside their parent's one trace, under a global tracer provider
// that would show any span they opened of their own.
import { context, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { createFaux, fauxToolCall } from "@tern/ai/testing";
import { afterEach, describe, expect, it } from "vitest";
import { Agent, agentLoop, contextGuard, HookRegistry, runAgentLoop, taskTool } from "../../src/index.js";
import { GEN_AI, TERN } from "../../src/telemetry/semconv.js";
import { turns, user } from "../context/support.js";
import { echoTool, sleep } from "../helpers.js";
import { analysisReply, call, cast, plan, planReply, stepWithSubagent } from "../plan/support.js";
import { childrenOf, memoryTracing, rootOf } from "./support.js";

const noop = () => {};

describe("run telemetry", () => {
  const tracing = memoryTracing();
  afterEach(() => tracing.reset());

  it("a run with a compaction, parallel tools and a failed model call makes one tree of spans", async () => {
    const summariser = createFaux({
      replies: [{ content: "CARD: f01..f16 read", usage: { input: 900, output: 40 } }],
    });
    const faux = createFaux({
      replies: [
        {
          content: [
            fauxToolCall("echo", { text: "a" }, "call-a"),
            fauxToolCall("echo", { text: "b" }, "call-b"),
          ],
          usage: { input: 300, output: 20, cacheRead: 200 },
        },
        { error: { kind: "auth", message: "the key was refused" } },
      ],
    });
    const result = await runAgentLoop(
      [user("Fix the parser")],
      { messages: turns(1, 20), tools: [echoTool()] },
      {
        model: faux.model,
        policies: [
          contextGuard({
            budget: 10_000,
            keepRecentTokens: 2_000,
            keepToolResults: 100,
            summaryModel: summariser.model,
          }),
        ],
        streamOptions: { sessionId: "session-7" },
        telemetry: { tracer: tracing.tracer },
      },
      noop,
    );
    expect(result.stopReason).toBe("error");
    expect(tracing.open()).toEqual([]);

    const spans = tracing.spans();
    const root = rootOf(spans);
    expect(root.name).toBe("invoke_agent tern");
    expect(root.kind).toBe(SpanKind.INTERNAL);
    expect(root.attributes).toMatchObject({
      [GEN_AI.operation]: "invoke_agent",
      [GEN_AI.agentName]: "tern",
      [GEN_AI.provider]: "faux",
      [GEN_AI.system]: "faux",
      [GEN_AI.requestModel]: faux.model.id,
      [GEN_AI.conversationId]: "session-7",
      [TERN.stopReason]: "error",
      [TERN.iterations]: 2,
      "error.type": "error",
    });
    expect(root.status.code).toBe(SpanStatusCode.ERROR);
    expect(root.attributes[GEN_AI.outputTokens]).toBe(result.usage.output);
    expect(root.events.map((event) => event.name)).toEqual([TERN.compactionStart, TERN.compactionEnd]);
    expect(root.events[1]!.attributes).toMatchObject({ "tern.compaction.reason": expect.any(String) });

    const children = childrenOf(spans, root);
    expect(children.map((span) => span.name)).toEqual([
      `chat ${summariser.model.id}`,
      `chat ${faux.model.id}`,
      "execute_tool echo",
      "execute_tool echo",
      `chat ${faux.model.id}`,
    ]);
    expect(spans).toHaveLength(children.length + 1); // nothing deeper, nothing detached
    const [compaction, turn1, toolA, toolB, turn2] = children;
    expect(compaction!.kind).toBe(SpanKind.CLIENT);
    expect(compaction!.attributes).toMatchObject({
      [GEN_AI.operation]: "chat",
      [TERN.purpose]: "compaction",
      [GEN_AI.inputTokens]: 900,
      [GEN_AI.outputTokens]: 40,
      [GEN_AI.finishReasons]: ["stop"],
    });
    expect(turn1!.attributes).toMatchObject({
      [TERN.purpose]: "turn",
      [TERN.turn]: 1,
      [GEN_AI.responseModel]: faux.model.id,
      [GEN_AI.inputTokens]: 500,
      [GEN_AI.cacheReadTokens]: 200,
      [GEN_AI.finishReasons]: ["tool_call"],
    });
    expect([toolA!.attributes[GEN_AI.toolCallId], toolB!.attributes[GEN_AI.toolCallId]].sort()).toEqual([
      "call-a",
      "call-b",
    ]);
    expect(toolA!.attributes).toMatchObject({
      [GEN_AI.operation]: "execute_tool",
      [GEN_AI.toolName]: "echo",
      [TERN.turn]: 1,
    });
    expect(toolA!.status.code).not.toBe(SpanStatusCode.ERROR);
    expect(turn2!.attributes).toMatchObject({
      [TERN.turn]: 2,
      "error.type": "auth",
      [GEN_AI.finishReasons]: ["error"],
    });
    expect(turn2!.status).toMatchObject({
      code: SpanStatusCode.ERROR,
      message: expect.stringContaining("refused"),
    });
  });

  it("records no message content unless asked", async () => {
    const faux = createFaux({
      replies: [{ content: [fauxToolCall("echo", { text: "secret-arg" })] }, "secret-answer"],
    });
    await runAgentLoop(
      [user("secret-prompt")],
      { messages: [], tools: [echoTool()] },
      { model: faux.model, telemetry: { tracer: tracing.tracer } },
      noop,
    );
    const everything = JSON.stringify(tracing.spans().map((span) => [span.attributes, span.events]));
    expect(everything).not.toContain("secret");
    for (const name of [
      GEN_AI.inputMessages,
      GEN_AI.outputMessages,
      GEN_AI.toolArguments,
      GEN_AI.toolResult,
    ]) {
      expect(everything).not.toContain(name);
    }
  });

  it("records prompts, answers, tool arguments and results when content capture is on", async () => {
    const faux = createFaux({
      replies: [{ content: [fauxToolCall("echo", { text: "arg-1" })] }, "the answer"],
    });
    await runAgentLoop(
      [user("the prompt")],
      { messages: [], tools: [echoTool()] },
      { model: faux.model, telemetry: { tracer: tracing.tracer, captureContent: true } },
      noop,
    );
    const spans = tracing.spans();
    const root = rootOf(spans);
    expect(JSON.parse(String(root.attributes[GEN_AI.inputMessages]))).toEqual([
      { role: "user", parts: [{ type: "text", content: "the prompt" }] },
    ]);
    expect(JSON.parse(String(root.attributes[GEN_AI.outputMessages]))).toEqual([
      { role: "assistant", parts: [{ type: "text", content: "the answer" }] },
    ]);
    const tool = spans.find((span) => span.name === "execute_tool echo")!;
    expect(JSON.parse(String(tool.attributes[GEN_AI.toolArguments]))).toEqual({ text: "arg-1" });
    expect(tool.attributes[GEN_AI.toolResult]).toBe("echo: arg-1");
    const lastChat = spans.filter((span) => span.name.startsWith("chat ")).at(-1)!;
    expect(JSON.parse(String(lastChat.attributes[GEN_AI.outputMessages]))).toEqual([
      { role: "assistant", parts: [{ type: "text", content: "the answer" }], finish_reason: "stop" },
    ]);
  });

  it("passes error messages and captured content through the redactor before they reach a span", async () => {
    const faux = createFaux({
      replies: [
        { content: [fauxToolCall("echo", { text: "token hunter2" })] },
        { error: { kind: "auth", message: "key hunter2 was refused" } },
      ],
    });
    await runAgentLoop(
      [user("use hunter2")],
      { messages: [], tools: [echoTool()] },
      {
        model: faux.model,
        telemetry: {
          tracer: tracing.tracer,
          captureContent: true,
          redact: (text) => text.replaceAll("hunter2", "[REDACTED]"),
        },
      },
      noop,
    );
    const everything = JSON.stringify(
      tracing.spans().map((span) => [span.attributes, span.events, span.status]),
    );
    expect(everything).toContain("[REDACTED]");
    expect(everything).toContain("was refused");
    expect(everything).not.toContain("hunter2");
  });

  it("ends every span when the run is aborted in the middle of a tool call", async () => {
    const faux = createFaux({ replies: [{ content: [fauxToolCall("wait", {})] }, "never"] });
    const controller = new AbortController();
    const waitTool = {
      name: "wait",
      description: "waits until aborted",
      parameters: { type: "object", properties: {} },
      execute: async (_args: unknown, { signal }: { signal: AbortSignal }) => {
        controller.abort();
        await sleep(60_000, signal);
        return "late";
      },
    };
    const result = await runAgentLoop(
      [user("go")],
      { messages: [], tools: [waitTool] },
      { model: faux.model, telemetry: { tracer: tracing.tracer } },
      noop,
      controller.signal,
    );
    expect(result.stopReason).toBe("aborted");
    expect(tracing.open()).toEqual([]);
    const root = rootOf(tracing.spans());
    expect(root.attributes["error.type"]).toBe("aborted");
    const tool = tracing.spans().find((span) => span.name === "execute_tool wait")!;
    expect(tool.status.code).toBe(SpanStatusCode.ERROR);
  });

  it("ends every span when the consumer stops reading the stream early", async () => {
    const faux = createFaux({ replies: [{ content: [fauxToolCall("echo", { text: "x" })] }, "done"] });
    const stream = agentLoop(
      [user("go")],
      { messages: [], tools: [echoTool()] },
      { model: faux.model, telemetry: { tracer: tracing.tracer } },
    );
    for await (const event of stream) if (event.type === "model_call_start") break;
    const result = await stream.result();
    expect(result.stopReason).toBe("stop");
    expect(tracing.open()).toEqual([]);
    expect(tracing.spans().map((span) => span.name)).toContain("execute_tool echo");
  });

  it("records a permission hook's denial on the tool span", async () => {
    const faux = createFaux({ replies: [{ content: [fauxToolCall("echo", { text: "x" })] }, "ok"] });
    const hooks = new HookRegistry();
    hooks.register({
      event: "PreToolUse",
      name: "permissions",
      handler: () => ({ decision: "deny", reason: "no" }),
    });
    await runAgentLoop(
      [user("go")],
      { messages: [], tools: [echoTool()] },
      { model: faux.model, hooks, telemetry: { tracer: tracing.tracer } },
      noop,
    );
    const tool = tracing.spans().find((span) => span.name === "execute_tool echo")!;
    expect(tool.attributes).toMatchObject({ [TERN.permission]: "denied", "error.type": "denied" });
  });

  it("a routed plan run is one tree: router, planner, parallel steps' calls and tools, analysis, synthesis", async () => {
    const actors = cast();
    actors.router.push({
      content: [fauxToolCall("choose_strategy", { strategy: "plan", reason: "two parts" })],
    });
    actors.planner.push(planReply(plan(["a", []], ["b", []])));
    actors.step("a").push(call("echo", { text: "a" }), "A");
    actors.step("b").push(call("echo", { text: "b" }), "B");
    actors.analyzer.push(analysisReply(true, 1));
    actors.synth.push("both done");
    const agent = new Agent({
      model: actors.model,
      streamFn: actors.streamFn,
      strategy: "auto",
      tools: [echoTool()],
      telemetry: { tracer: tracing.tracer },
    });
    const result = await agent.prompt("do a and b");
    expect(result.answer).toBe("both done");
    expect(tracing.open()).toEqual([]);
    const spans = tracing.spans();
    const root = rootOf(spans);
    expect(root.name).toBe("invoke_agent tern");
    const children = childrenOf(spans, root);
    expect(spans).toHaveLength(children.length + 1);
    const purposes = children
      .filter((s) => s.name.startsWith("chat "))
      .map((s) => s.attributes[TERN.purpose]);
    expect(purposes.slice(0, 2)).toEqual(["route", "plan"]);
    expect(purposes.slice(-2)).toEqual(["analyze", "synthesis"]);
    expect(purposes.filter((p) => String(p).startsWith("step:")).sort()).toEqual([
      "step:a",
      "step:a",
      "step:b",
      "step:b",
    ]);
    const tools = children.filter((s) => s.name === "execute_tool echo");
    expect(tools.map((s) => s.attributes[TERN.stepId]).sort()).toEqual(["a", "b"]);
    expect(
      root.events.filter((e) => e.name === TERN.plan).map((e) => e.attributes?.["tern.plan.event"]),
    ).toEqual(["start", "step_end", "step_end"]);
  });

  it("a sub-agent joins its parent's trace: its calls and tools are children of the task call's span", async () => {
    trace.setGlobalTracerProvider(tracing.provider);
    try {
      const faux = createFaux({
        replies: [
          { content: [fauxToolCall("task", { description: "look", prompt: "look it up" }, "call-task")] },
          { content: [fauxToolCall("echo", { text: "x" }, "call-echo")] },
          "found x",
          "done",
        ],
      });
      const tools = [echoTool(), taskTool({ model: faux.model, tools: [echoTool()] })];
      const result = await runAgentLoop([user("go")], { messages: [], tools }, { model: faux.model }, noop);
      expect(result.answer).toBe("done");
      expect(tracing.open()).toEqual([]);
      const spans = tracing.spans();
      const root = rootOf(spans);
      expect(spans.filter((span) => span.name.startsWith("invoke_agent"))).toEqual([root]);
      const chat = `chat ${faux.model.id}`;
      expect(childrenOf(spans, root).map((span) => span.name)).toEqual([chat, "execute_tool task", chat]);
      const task = childrenOf(spans, root)[1]!;
      expect(childrenOf(spans, task).map((span) => span.name)).toEqual([chat, "execute_tool echo", chat]);
      expect(spans).toHaveLength(7);
    } finally {
      trace.disable();
    }
  });

  it("a plan's steps and their sub-agents open no run span: one trace, nested under the plan's", async () => {
    trace.setGlobalTracerProvider(tracing.provider);
    try {
      const actors = cast();
      const tools = stepWithSubagent(actors);
      const agent = new Agent({ model: actors.model, streamFn: actors.streamFn, strategy: "plan", tools });
      const result = await agent.prompt("do a");
      expect(result.answer).toBe("done");
      expect(tracing.open()).toEqual([]);
      const spans = tracing.spans();
      const root = rootOf(spans);
      expect(spans.filter((span) => span.name.startsWith("invoke_agent"))).toEqual([root]);
      const children = childrenOf(spans, root);
      expect(children.map((s) => s.attributes[TERN.purpose] ?? s.name)).toEqual([
        "plan",
        "step:a",
        "execute_tool task",
        "step:a",
        "analyze",
        "synthesis",
      ]);
      const task = children[2]!;
      expect(task.attributes[TERN.stepId]).toBe("a");
      expect(childrenOf(spans, task).map((s) => s.attributes[TERN.purpose] ?? s.name)).toEqual([
        "step:a",
        "execute_tool echo",
        "step:a",
      ]);
      expect(spans).toHaveLength(children.length + 4);
    } finally {
      trace.disable();
    }
  });

  it("ends the run's span as failed when the run crashes before agent_end", async () => {
    const faux = createFaux({ replies: ["never"] });
    const crash = runAgentLoop(
      [user("go")],
      { messages: [] },
      {
        model: faux.model,
        ids: () => {
          throw new Error("no ids today");
        },
        telemetry: { tracer: tracing.tracer },
      },
      noop,
    );
    await expect(crash).rejects.toThrow(/no ids today/);
    expect(tracing.open()).toEqual([]);
    const root = rootOf(tracing.spans());
    expect(root.attributes["error.type"]).toBe("unfinished");
    expect(root.status).toMatchObject({ code: SpanStatusCode.ERROR, message: "no ids today" });
  });

  it("nests under the host's active span, and spans a tool makes land inside the run's span", async () => {
    const manager = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(manager);
    try {
      const faux = createFaux({ replies: [{ content: [fauxToolCall("lookup", {})] }, "found"] });
      const lookup = {
        name: "lookup",
        description: "looks something up with an instrumented client",
        parameters: { type: "object", properties: {} },
        execute: () =>
          tracing.tracer.startActiveSpan("GET /things", (span) => {
            span.end();
            return "ok";
          }),
      };
      await tracing.tracer.startActiveSpan("POST /ask", async (request) => {
        await runAgentLoop(
          [user("look it up")],
          { messages: [], tools: [lookup] },
          { model: faux.model, telemetry: { tracer: tracing.tracer } },
          noop,
        );
        request.end();
      });
      const spans = tracing.spans();
      const host = rootOf(spans);
      expect(host.name).toBe("POST /ask");
      const [run] = childrenOf(spans, host);
      expect(run!.name).toBe("invoke_agent tern");
      expect(childrenOf(spans, run!).map((span) => span.name)).toContain("GET /things");
    } finally {
      context.disable();
    }
  });

  it("uses the global tracer provider by default and makes no spans with telemetry: false", async () => {
    trace.setGlobalTracerProvider(tracing.provider);
    try {
      const faux = createFaux({ replies: ["one", "two"] });
      await runAgentLoop([user("a")], { messages: [] }, { model: faux.model }, noop);
      expect(tracing.spans().map((span) => span.name)).toEqual([
        "invoke_agent tern",
        `chat ${faux.model.id}`,
      ]);
      tracing.reset();
      await runAgentLoop([user("b")], { messages: [] }, { model: faux.model, telemetry: false }, noop);
      expect(tracing.spans()).toEqual([]);
    } finally {
      trace.disable();
    }
  });
});
