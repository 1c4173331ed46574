// Sub-agents and the todo list in both protocol mappings, on hand-written canonical events: a
// `task` call whose sub-agent runs one tool, and a todo_write result.
import type { AgentEvent } from "@tern/agent";
import { emptyUsage } from "@tern/ai";
import { describe, expect, it } from "vitest";
import { CopilotMapper } from "../src/mappings/copilot-events.js";
import { FimMapper } from "../src/mappings/fim-sse.js";

const usage = { ...emptyUsage(), input: 10, output: 5, totalTokens: 15 };
const ok = (text: string, details?: unknown) => ({
  content: [{ type: "text" as const, text }],
  isError: false,
  terminate: false,
  ...(details ? { details } : {}),
});
const ITEMS = [{ id: "1", content: "Look around", status: "in_progress" }];

const events: AgentEvent[] = [
  { type: "agent_start", runId: "r", timestamp: 0 },
  { type: "turn_start", turn: 1, timestamp: 0 },
  { type: "model_call_start", callId: "c1", purpose: "turn", model: "m", provider: "p", timestamp: 0 },
  {
    type: "model_call_end",
    callId: "c1",
    purpose: "turn",
    model: "m",
    provider: "p",
    usage,
    durationMs: 1,
    stopReason: "toolUse",
  },
  { type: "tool_execution_start", toolCallId: "todo1", toolName: "todo_write", args: { todos: ITEMS } },
  {
    type: "tool_execution_end",
    toolCallId: "todo1",
    toolName: "todo_write",
    result: ok("saved", { items: ITEMS }),
    isError: false,
    durationMs: 1,
  },
  {
    type: "tool_execution_start",
    toolCallId: "task1",
    toolName: "task",
    args: { description: "Look", prompt: "look" },
  },
  {
    type: "subagent_start",
    parentToolCallId: "task1",
    agent: "general",
    task: "Look",
    model: "m",
    depth: 1,
    timestamp: 0,
  },
  {
    type: "model_call_start",
    callId: "c2",
    purpose: "turn",
    model: "m",
    provider: "p",
    timestamp: 0,
    parentToolCallId: "task1",
  },
  {
    type: "model_call_end",
    callId: "c2",
    purpose: "turn",
    model: "m",
    provider: "p",
    usage,
    durationMs: 1,
    stopReason: "toolUse",
    parentToolCallId: "task1",
  },
  { type: "tool_execution_start", toolCallId: "ls1", toolName: "ls", args: {}, parentToolCallId: "task1" },
  {
    type: "tool_execution_end",
    toolCallId: "ls1",
    toolName: "ls",
    result: ok("a.txt"),
    isError: false,
    durationMs: 1,
    parentToolCallId: "task1",
  },
  {
    type: "subagent_end",
    parentToolCallId: "task1",
    agent: "general",
    status: "done",
    answer: "one file",
    turns: 2,
    usage,
    durationMs: 5,
  },
  {
    type: "tool_execution_end",
    toolCallId: "task1",
    toolName: "task",
    result: ok("one file"),
    isError: false,
    durationMs: 6,
  },
];

describe("sub-agent and todo mappings", () => {
  it("FIM SSE: a subagent channel, nested iterations marked with their parent, a todo frame", () => {
    const mapper = new FimMapper();
    const frames = events.flatMap((event) => mapper.map(event));
    expect(frames.filter((f) => f.event === "todo")).toEqual([{ event: "todo", data: { items: ITEMS } }]);
    const sub = frames.filter((f) => f.event === "subagent");
    expect(sub.map((f) => [f.data.status, f.data.tool_call_id, f.data.agent])).toEqual([
      ["running", "task1", "general"],
      ["done", "task1", "general"],
    ]);
    expect(sub[1]!.data).toMatchObject({ answer: "one file", turns: 2, duration_ms: 5 });
    const nested = frames.filter((f) => f.event === "step" && f.data.tool_name === "ls");
    expect(nested.map((f) => f.data.parent_tool_call_id)).toEqual(["task1", "task1"]);
  });

  it("FIM SSE: a plan step's sub-agent frames carry its step_id", () => {
    const mapper = new FimMapper();
    const inStep = events.map((event) =>
      event.type === "subagent_start" || event.type === "subagent_end" ? { ...event, stepId: "a" } : event,
    );
    const sub = inStep.flatMap((event) => mapper.map(event)).filter((f) => f.event === "subagent");
    expect(sub.map((f) => [f.data.status, f.data.step_id])).toEqual([
      ["running", "a"],
      ["done", "a"],
    ]);
  });

  it("Copilot: subagent.started/completed on the task call, nested tools with parentToolCallId, no turn for sub-agent calls", () => {
    const mapper = new CopilotMapper("s");
    const bodies = events.flatMap((event) => mapper.map(event));
    expect(bodies.filter((b) => b.type === "assistant.turn_start")).toHaveLength(1);
    expect(bodies.find((b) => b.type === "subagent.started")?.data).toMatchObject({
      toolCallId: "task1",
      agentName: "general",
      agentDescription: "Look",
    });
    expect(bodies.find((b) => b.type === "subagent.completed")?.data).toMatchObject({
      toolCallId: "task1",
      totalTokens: 15,
    });
    const ls = bodies.filter((b) => b.type.startsWith("tool.execution") && b.data.toolCallId === "ls1");
    expect(ls.map((b) => b.data.parentToolCallId)).toEqual(["task1", "task1"]);
    const usageOfSub = bodies.find((b) => b.type === "assistant.usage" && b.data.apiCallId === "c2");
    expect(usageOfSub?.data.parentToolCallId).toBe("task1");
    expect(
      bodies.find((b) => b.type === "session.info" && b.data.infoType === "todo_list")?.data,
    ).toMatchObject({
      todos: ITEMS,
    });
  });

  it("Copilot: a failed sub-agent is subagent.failed with its error", () => {
    const mapper = new CopilotMapper("s");
    const [failed] = mapper.map({
      type: "subagent_end",
      parentToolCallId: "t",
      agent: "general",
      status: "failed",
      answer: "",
      error: "the model broke",
      turns: 1,
      usage,
      durationMs: 3,
    });
    expect(failed).toMatchObject({
      type: "subagent.failed",
      data: { toolCallId: "t", error: "the model broke" },
    });
  });
});
