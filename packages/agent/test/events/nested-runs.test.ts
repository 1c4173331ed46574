// The fold over a recorded nested stream: a plan step whose run calls `task`, whose sub-agent
// calls `task` again, beside a tool call of the run itself.
import { emptyUsage } from "@tern/ai";
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/events.js";
import { NestedRuns } from "../../src/nested-runs.js";

const toolStart = (toolCallId: string, toolName: string, marks: object): AgentEvent => ({
  type: "tool_execution_start",
  toolCallId,
  toolName,
  args: {},
  ...marks,
});
const toolEnd = (toolCallId: string, toolName: string, marks: object): AgentEvent => ({
  type: "tool_execution_end",
  toolCallId,
  toolName,
  result: { content: [{ type: "text", text: "ok" }], isError: false, terminate: false },
  isError: false,
  durationMs: 1,
  ...marks,
});
const modelStart = (purpose: string, marks: object = {}): AgentEvent => ({
  type: "model_call_start",
  callId: `call-${purpose}`,
  purpose,
  model: "m",
  provider: "p",
  timestamp: 0,
  ...marks,
});
const subStart = (parentToolCallId: string, depth: number): AgentEvent => ({
  type: "subagent_start",
  parentToolCallId,
  agent: "general",
  task: "look",
  model: "m",
  depth,
  timestamp: 0,
  stepId: "a",
});

/** As a plan run with a `task` call in step "a" records it (marks as the step and task tool set them). */
const STREAM: [AgentEvent, { [key: string]: unknown }][] = [
  [{ type: "agent_start", runId: "r", timestamp: 0 }, { depth: 0 }],
  [toolStart("top", "read", {}), { depth: 0 }],
  [
    { type: "plan_step_start", round: 2, stepId: "a", task: "t", model: "m", timestamp: 0 },
    { stepId: "a", round: 2, depth: 1 },
  ],
  [modelStart("step:a"), { stepId: "a", round: 2, depth: 1 }],
  [modelStart("step:a:compaction"), { stepId: "a", round: 2, depth: 1 }],
  [toolStart("t1", "task", { stepId: "a" }), { stepId: "a", round: 2, depth: 1 }],
  [subStart("t1", 1), { parentToolCallId: "t1", rootToolCallId: "t1", stepId: "a", round: 2, depth: 2 }],
  // The sub-agent's model calls carry no step: the fold finds it through the task call.
  [
    modelStart("turn", { parentToolCallId: "t1" }),
    { parentToolCallId: "t1", rootToolCallId: "t1", stepId: "a", round: 2, depth: 2 },
  ],
  [
    toolStart("t2", "task", { parentToolCallId: "t1", stepId: "a" }),
    { parentToolCallId: "t1", rootToolCallId: "t1", stepId: "a", round: 2, depth: 2 },
  ],
  [subStart("t2", 2), { parentToolCallId: "t2", rootToolCallId: "t1", stepId: "a", round: 2, depth: 3 }],
  [
    modelStart("turn", { parentToolCallId: "t2" }),
    { parentToolCallId: "t2", rootToolCallId: "t1", stepId: "a", round: 2, depth: 3 },
  ],
  [
    toolStart("t3", "read", { parentToolCallId: "t2", stepId: "a" }),
    { parentToolCallId: "t2", rootToolCallId: "t1", stepId: "a", round: 2, depth: 3 },
  ],
  // A sub-agent's error is marked at run time though the type declares no mark.
  [
    { type: "error", source: "hook", message: "x", parentToolCallId: "t2" } as AgentEvent,
    { parentToolCallId: "t2", rootToolCallId: "t1", stepId: "a", round: 2, depth: 3 },
  ],
  [
    toolEnd("t3", "read", { parentToolCallId: "t2", stepId: "a" }),
    { parentToolCallId: "t2", rootToolCallId: "t1", stepId: "a", round: 2, depth: 3 },
  ],
  [
    toolEnd("t2", "task", { parentToolCallId: "t1", stepId: "a" }),
    { parentToolCallId: "t1", rootToolCallId: "t1", stepId: "a", round: 2, depth: 2 },
  ],
  [
    {
      type: "subagent_end",
      parentToolCallId: "t1",
      agent: "general",
      status: "done",
      answer: "",
      turns: 1,
      usage: emptyUsage(),
      durationMs: 1,
      stepId: "a",
    },
    { parentToolCallId: "t1", rootToolCallId: "t1", stepId: "a", round: 2, depth: 2 },
  ],
  [toolEnd("t1", "task", { stepId: "a" }), { stepId: "a", round: 2, depth: 1 }],
  [toolEnd("top", "read", {}), { depth: 0 }],
  // Purposes that only look like a step's: no step "b" ran.
  [modelStart("step:b"), { depth: 0 }],
  [modelStart("turn"), { depth: 0 }],
];

describe("NestedRuns", () => {
  it("places every event of a sub-agent inside a plan step", () => {
    const nesting = new NestedRuns();
    expect(STREAM.map(([event]) => nesting.place(event))).toEqual(STREAM.map(([, place]) => place));
  });

  it("forgets a run's tool calls and steps at its end", () => {
    const nesting = new NestedRuns();
    for (const [event] of STREAM.slice(0, 9)) nesting.place(event);
    nesting.place({
      type: "agent_end",
      messages: [],
      answer: "",
      usage: emptyUsage(),
      iterations: 0,
      elapsedMs: 0,
      stopReason: "aborted",
    });
    expect(nesting.place(modelStart("turn", { parentToolCallId: "t2" }))).toEqual({
      parentToolCallId: "t2",
      rootToolCallId: "t2",
      depth: 1,
    });
    expect(nesting.place(modelStart("step:a"))).toEqual({ depth: 0 });
  });

  it("places a server's own events at the top", () => {
    expect(new NestedRuns().place({ type: "idle" })).toEqual({ depth: 0 });
  });

  it("prefers the longer step id when ids hold a colon", () => {
    const nesting = new NestedRuns();
    nesting.place({ type: "plan_step_start", round: 1, stepId: "a", task: "t", model: "m", timestamp: 0 });
    nesting.place({ type: "plan_step_start", round: 1, stepId: "a:b", task: "t", model: "m", timestamp: 0 });
    expect(nesting.place(modelStart("step:a:b"))).toMatchObject({ stepId: "a:b" });
    expect(nesting.place(modelStart("step:a:compaction"))).toMatchObject({ stepId: "a" });
  });
});
