import {
  type AssistantEvent,
  type AssistantMessage,
  type StreamFunction,
  stream,
  type ToolResultMessage,
} from "@tern/ai";
import { createFaux, fauxToolCall } from "@tern/ai/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type AgentEvent, type AgentTool, agentLoop, HookRegistry } from "../src/index.js";
import { TRUNCATED_CALL_TEXT } from "../src/tool-batch.js";
import {
  collect,
  echoTool,
  expectValidTranscript,
  gatedTool,
  outline,
  results,
  textOf,
  timedTool,
  tracker,
  user,
} from "./helpers.js";

function endOrder(events: AgentEvent[]): string[] {
  return events.flatMap((e) => (e.type === "tool_execution_end" ? [e.toolCallId] : []));
}

describe("tool execution", () => {
  it("runs calls in parallel, ends them in completion order and appends results in call order", async () => {
    const t = tracker();
    const wait = gatedTool("wait", t);
    const faux = createFaux({
      replies: [
        {
          content: [
            fauxToolCall("wait", { tag: "slow" }, "a"),
            fauxToolCall("wait", { tag: "fast" }, "b"),
            fauxToolCall("wait", { tag: "mid" }, "c"),
          ],
        },
        "all done",
      ],
    });
    const stream = agentLoop([user("go")], { messages: [], tools: [wait.tool] }, { model: faux.model });
    const collected = collect(stream);
    await wait.waiting(3);
    for (const tag of ["fast", "mid", "slow"]) await wait.release(tag);
    const events = await collected;
    expect(t.max).toBe(3);
    expect(endOrder(events)).toEqual(["b", "c", "a"]);
    const outcome = await stream.result();
    expect(results(outcome.messages).map((r) => r.toolCallId)).toEqual(["a", "b", "c"]);
    expect(faux.requests[1]!.context.messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "toolResult",
      "toolResult",
    ]);
    expect(faux.requests[1]!.context.messages.slice(2).map((m) => textOf(m))).toEqual([
      "done slow",
      "done fast",
      "done mid",
    ]);
    // All three end before any result message is emitted.
    const lines = outline(events);
    expect(lines.indexOf("message_start:toolResult")).toBeGreaterThan(lines.indexOf("tool_execution_end:a"));
  });

  it("caps concurrency when asked", async () => {
    const t = tracker();
    const calls = ["a", "b", "c", "d"].map((id) => fauxToolCall("wait", { ms: 10, tag: id }, id));
    const faux = createFaux({ replies: [{ content: calls }, "ok"] });
    await agentLoop(
      [user("go")],
      { messages: [], tools: [timedTool("wait", t)] },
      {
        model: faux.model,
        toolExecution: { concurrency: 2 },
      },
    ).result();
    expect(t.max).toBe(2);
    expect(t.order).toHaveLength(4);
  });

  it("runs the whole batch sequentially when one tool asks for it", async () => {
    const t = tracker();
    const serial = { ...timedTool("serial", t), executionMode: "sequential" as const };
    const faux = createFaux({
      replies: [
        {
          content: [
            fauxToolCall("wait", { ms: 30, tag: "first" }, "a"),
            fauxToolCall("serial", { ms: 1, tag: "second" }, "b"),
            fauxToolCall("wait", { ms: 1, tag: "third" }, "c"),
          ],
        },
        "ok",
      ],
    });
    const events = await collect(
      agentLoop([user("go")], { messages: [], tools: [timedTool("wait", t), serial] }, { model: faux.model }),
    );
    expect(t.max).toBe(1);
    expect(t.order).toEqual(["first", "second", "third"]);
    expect(outline(events).filter((l) => l.startsWith("tool_execution"))).toEqual([
      "tool_execution_start:a",
      "tool_execution_end:a",
      "tool_execution_start:b",
      "tool_execution_end:b",
      "tool_execution_start:c",
      "tool_execution_end:c",
    ]);
  });

  it("runs sequentially when configured", async () => {
    const t = tracker();
    const calls = ["a", "b"].map((id) => fauxToolCall("wait", { ms: 5, tag: id }, id));
    const faux = createFaux({ replies: [{ content: calls }, "ok"] });
    await agentLoop(
      [user("go")],
      { messages: [], tools: [timedTool("wait", t)] },
      {
        model: faux.model,
        toolExecution: { mode: "sequential" },
      },
    ).result();
    expect(t.max).toBe(1);
  });

  it("streams partial results as tool_execution_update", async () => {
    const tool: AgentTool<{ n: number }> = {
      name: "count",
      description: "counts",
      parameters: z.object({ n: z.number() }),
      execute: async ({ n }, { onUpdate }) => {
        for (let i = 1; i <= n; i++) await onUpdate(`${i}/${n}`);
        return { content: "counted", details: { n } };
      },
    };
    const faux = createFaux({ replies: [{ content: [fauxToolCall("count", { n: 3 }, "k")] }, "ok"] });
    const events = await collect(
      agentLoop([user("go")], { messages: [], tools: [tool] }, { model: faux.model }),
    );
    const updates = events.flatMap((e) =>
      e.type === "tool_execution_update" ? [`${e.toolCallId}:${textOf(e.partialResult as never)}`] : [],
    );
    expect(updates).toEqual(["k:1/3", "k:2/3", "k:3/3"]);
    const lines = outline(events);
    expect(lines.indexOf("tool_execution_update")).toBeGreaterThan(lines.indexOf("tool_execution_start:k"));
    expect(lines.lastIndexOf("tool_execution_update")).toBeLessThan(lines.indexOf("tool_execution_end:k"));
  });

  it("answers an unknown tool with an error that lists the available tools", async () => {
    const faux = createFaux({ replies: [{ content: [fauxToolCall("nope", {}, "u")] }, "sorry"] });
    const outcome = await agentLoop(
      [user("go")],
      { messages: [], tools: [echoTool()] },
      { model: faux.model },
    ).result();
    const [result] = results(outcome.messages);
    expect(result).toMatchObject({ toolCallId: "u", toolName: "nope", isError: true });
    expect(textOf(result)).toBe('Tool "nope" not found. Available tools: echo.');
    expect(outcome.stopReason).toBe("stop");
    expect(faux.requests).toHaveLength(2);
  });

  it("reports invalid arguments to the model and does not run the tool (zod)", async () => {
    const log: string[] = [];
    const faux = createFaux({ replies: [{ content: [fauxToolCall("echo", { text: 42 }, "v")] }, "fixed"] });
    const outcome = await agentLoop(
      [user("go")],
      { messages: [], tools: [echoTool(log)] },
      { model: faux.model },
    ).result();
    expect(log).toEqual([]);
    const [result] = results(outcome.messages);
    expect(result!.isError).toBe(true);
    expect(textOf(result)).toBe(
      'Invalid arguments for tool "echo":\n- text: Invalid input: expected string, received number\nFix the arguments and call the tool again.',
    );
  });

  it("reports invalid arguments to the model and does not run the tool (JSON Schema)", async () => {
    let ran = false;
    const tool: AgentTool<{ path: string; mode?: string }> = {
      name: "open",
      description: "opens",
      parameters: {
        type: "object",
        properties: { path: { type: "string" }, mode: { type: "string", enum: ["r", "w"], default: "r" } },
        required: ["path"],
        additionalProperties: false,
      },
      execute: (args) => {
        ran = true;
        return `opened ${args.path} as ${args.mode}`;
      },
    };
    const faux = createFaux({
      replies: [
        { content: [fauxToolCall("open", { mode: "x", extra: 1 }, "bad")] },
        { content: [fauxToolCall("open", { path: "a.txt" }, "good")] },
        "ok",
      ],
    });
    const outcome = await agentLoop(
      [user("go")],
      { messages: [], tools: [tool] },
      { model: faux.model },
    ).result();
    const [bad, good] = results(outcome.messages);
    expect(textOf(bad)).toBe(
      'Invalid arguments for tool "open":\n' +
        "- (root): must have required property 'path'\n" +
        '- (root): unexpected property "extra"\n' +
        '- mode: must be equal to one of the allowed values: ["r","w"]\n' +
        "Fix the arguments and call the tool again.",
    );
    expect(ran).toBe(true);
    // Defaults are applied for the tool, not written into the model's own call.
    expect(textOf(good)).toBe("opened a.txt as r");
    const assistant = outcome.messages[3] as AssistantMessage;
    expect(assistant.content[0]).toMatchObject({ arguments: { path: "a.txt" } });
  });

  it("reports arguments that were not valid JSON", async () => {
    // The faux provider always sends valid JSON, so mark its call the way the message builder does.
    const brokenJson: StreamFunction = (model, context, options) => {
      const inner = stream(model, context, options);
      return {
        async *[Symbol.asyncIterator]() {
          for await (const event of inner) {
            if (event.type === "done") {
              for (const part of event.message.content) {
                if (part.type === "toolCall")
                  part.parseError = "tool arguments are not valid JSON (Unexpected end)";
              }
            }
            yield event as AssistantEvent;
          }
        },
        result: () => inner.result(),
      };
    };
    const log: string[] = [];
    const faux = createFaux({ replies: [{ content: [fauxToolCall("echo", { text: "x" }, "j")] }, "ok"] });
    const outcome = await agentLoop(
      [user("go")],
      { messages: [], tools: [echoTool(log)] },
      {
        model: faux.model,
        streamFn: brokenJson,
      },
    ).result();
    expect(log).toEqual([]);
    expect(textOf(results(outcome.messages)[0])).toBe(
      'Could not read the arguments of tool "echo": tool arguments are not valid JSON (Unexpected end)\n' +
        "Send the arguments as one JSON object.",
    );
  });

  it("repairs arguments with prepareArguments before validation", async () => {
    const seen: unknown[] = [];
    const tool: AgentTool<{ path: string }> = {
      name: "read",
      description: "reads",
      parameters: z.object({ path: z.string() }),
      prepareArguments: (args) => ("file" in args ? { path: args.file } : args),
      execute: (args) => {
        seen.push(args);
        return "ok";
      },
    };
    const faux = createFaux({ replies: [{ content: [fauxToolCall("read", { file: "a.md" }, "r")] }, "ok"] });
    const outcome = await agentLoop(
      [user("go")],
      { messages: [], tools: [tool] },
      { model: faux.model },
    ).result();
    expect(seen).toEqual([{ path: "a.md" }]);
    expect((outcome.messages[1] as AssistantMessage).content[0]).toMatchObject({
      arguments: { file: "a.md" },
    });
  });

  it("turns a thrown error into '<ErrorName>: <message>' and goes on", async () => {
    class QuotaError extends Error {
      override name = "QuotaError";
    }
    const tool: AgentTool = {
      name: "boom",
      description: "throws",
      parameters: { type: "object" },
      execute: () => {
        throw new QuotaError("out of quota");
      },
    };
    const faux = createFaux({ replies: [{ content: [fauxToolCall("boom", {}, "x")] }, "recovered"] });
    const events = await collect(
      agentLoop([user("go")], { messages: [], tools: [tool] }, { model: faux.model }),
    );
    const end = events.find((e) => e.type === "tool_execution_end");
    expect(end).toMatchObject({ isError: true });
    const final = events.at(-1) as Extract<AgentEvent, { type: "agent_end" }>;
    expect(textOf(results(final.messages)[0])).toBe("QuotaError: out of quota");
    expect(final.answer).toBe("recovered");
  });

  it("does not run tool calls cut by the output token limit, and asks again", async () => {
    const log: string[] = [];
    const faux = createFaux({
      replies: [
        { content: [fauxToolCall("echo", { text: "long" }, "cut")], stopReason: "length" },
        { content: [fauxToolCall("echo", { text: "short" }, "ok")] },
        "done",
      ],
    });
    const outcome = await agentLoop(
      [user("go")],
      { messages: [], tools: [echoTool(log)] },
      { model: faux.model },
    ).result();
    expect(log).toEqual(["short"]);
    const [cut] = results(outcome.messages);
    expect(cut).toMatchObject({ toolCallId: "cut", isError: true });
    expect(textOf(cut)).toBe(TRUNCATED_CALL_TEXT);
    expect(faux.requests).toHaveLength(3);
    expect(faux.requests[1]!.context.messages.at(-1)).toMatchObject({
      role: "toolResult",
      toolCallId: "cut",
    });
    expect(outcome.stopReason).toBe("stop");
    expectValidTranscript(outcome.messages);
  });

  it("ends the run with stop reason length when the final answer is cut", async () => {
    const faux = createFaux({ replies: [{ content: "partial answ", stopReason: "length" }] });
    const outcome = await agentLoop([user("go")], { messages: [] }, { model: faux.model }).result();
    expect(outcome).toMatchObject({ stopReason: "length", answer: "partial answ" });
  });

  it("ends without another model call when every result asks to terminate", async () => {
    const done: AgentTool = {
      name: "finish",
      description: "ends",
      parameters: { type: "object" },
      execute: () => ({ content: "finished", terminate: true }),
    };
    const faux = createFaux({
      replies: [{ content: [fauxToolCall("finish", {}, "f1"), fauxToolCall("finish", {}, "f2")] }, "unused"],
    });
    const outcome = await agentLoop(
      [user("go")],
      { messages: [], tools: [done] },
      { model: faux.model },
    ).result();
    expect(outcome.stopReason).toBe("terminated");
    expect(faux.requests).toHaveLength(1);
    expect(faux.pending).toBe(1);
    expect(results(outcome.messages).map((r) => textOf(r))).toEqual(["finished", "finished"]);
  });

  it("goes on when only some results ask to terminate", async () => {
    const done: AgentTool = {
      name: "finish",
      description: "ends",
      parameters: { type: "object" },
      execute: () => ({ content: "finished", terminate: true }),
    };
    const faux = createFaux({
      replies: [
        { content: [fauxToolCall("finish", {}, "f"), fauxToolCall("echo", { text: "e" }, "e")] },
        "after",
      ],
    });
    const outcome = await agentLoop(
      [user("go")],
      { messages: [], tools: [done, echoTool()] },
      {
        model: faux.model,
      },
    ).result();
    expect(outcome).toMatchObject({ stopReason: "stop", answer: "after", iterations: 2 });
    expect(faux.requests).toHaveLength(2);
  });

  it("keeps the results of a batch as ToolResultMessages right after their assistant message", async () => {
    const faux = createFaux({
      replies: [
        { content: [fauxToolCall("echo", { text: "1" }, "p"), fauxToolCall("echo", { text: "2" }, "q")] },
        { content: [fauxToolCall("echo", { text: "3" }, "r")] },
        "end",
      ],
    });
    const outcome = await agentLoop(
      [user("go")],
      { messages: [], tools: [echoTool()] },
      { model: faux.model },
    ).result();
    expectValidTranscript(outcome.messages);
    expect((outcome.messages as ToolResultMessage[]).map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "toolResult",
      "assistant",
      "toolResult",
      "assistant",
    ]);
  });

  it("runs more than ten calls at once without piling listeners on the run's signal", async () => {
    const CALLS = 12;
    // Every call and every hook waits until all of them are in flight, each holding an abort listener.
    const barrier = (count: number) => {
      let arrived = 0;
      let open!: () => void;
      const opened = new Promise<void>((resolve) => (open = resolve));
      return () => {
        if (++arrived === count) open();
        return opened;
      };
    };
    const hookBarrier = barrier(CALLS);
    const toolBarrier = barrier(CALLS);
    const listen = async (signal: AbortSignal | undefined, wait: () => Promise<void>) => {
      const onAbort = () => {};
      signal?.addEventListener("abort", onAbort, { once: true });
      await wait();
      signal?.removeEventListener("abort", onAbort);
    };
    const hooks = new HookRegistry();
    hooks.on("PreToolUse", (_input, { signal }) => listen(signal, hookBarrier));
    const tool: AgentTool<{ tag: string }> = {
      name: "hold",
      description: "Holds an abort listener until every call has started",
      parameters: z.object({ tag: z.string() }),
      execute: async ({ tag }, { signal }) => {
        await listen(signal, toolBarrier);
        return `held ${tag}`;
      },
    };
    const calls = Array.from({ length: CALLS }, (_, i) => fauxToolCall("hold", { tag: `${i}` }, `c${i}`));
    const faux = createFaux({ replies: [{ content: calls }, "done"] });
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on("warning", onWarning);
    try {
      const outcome = await agentLoop(
        [user("go")],
        { messages: [], tools: [tool] },
        { model: faux.model, hooks },
        new AbortController().signal,
      ).result();
      expect(results(outcome.messages).map((r) => textOf(r))).toEqual(calls.map((_, i) => `held ${i}`));
      // Warnings are emitted on a later tick.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off("warning", onWarning);
    }
    expect(warnings.map((w) => w.name)).not.toContain("MaxListenersExceededWarning");
  });
});
