// The terminal's collapsed view of sub-agents, on hand-written events: one status entry per
// running sub-agent (deeper ones count toward theirs), one summary line at its end, nothing left
// behind when an aborted run never sends the end.
import type { AgentEvent } from "@tern/agent";
import { emptyUsage } from "@tern/ai";
import { expect, it } from "vitest";
import { createStyle } from "../src/render/style.js";
import { SubagentLines } from "../src/render/subagent-lines.js";

function view() {
  const lines: string[] = [];
  const statuses: (string | undefined)[] = [];
  const sub = new SubagentLines(
    createStyle(false),
    (l) => lines.push(l),
    (s) => statuses.push(s),
  );
  return { sub, lines, statuses };
}

const start = (parent: string, agent: string): AgentEvent => ({
  type: "subagent_start",
  parentToolCallId: parent,
  agent,
  task: `task of ${agent}`,
  model: "m",
  depth: 1,
  timestamp: 0,
});

it("keeps a sub-agent's work to its status entry and sums it up in one line", () => {
  const { sub, lines, statuses } = view();
  expect(sub.handle(start("t1", "explorer"))).toBe(true);
  expect(
    sub.handle({
      type: "model_call_start",
      callId: "c",
      purpose: "turn",
      model: "m",
      provider: "p",
      timestamp: 0,
      parentToolCallId: "t1",
    }),
  ).toBe(true);
  expect(
    sub.handle({
      type: "tool_execution_start",
      toolCallId: "r1",
      toolName: "read",
      args: { path: "a.ts" },
      parentToolCallId: "t1",
    }),
  ).toBe(true);
  // A sub-agent of the sub-agent counts toward the top one.
  sub.handle({
    type: "tool_execution_start",
    toolCallId: "t2",
    toolName: "task",
    args: {},
    parentToolCallId: "t1",
  });
  sub.handle({
    type: "tool_execution_start",
    toolCallId: "g1",
    toolName: "ls",
    args: { path: "." },
    parentToolCallId: "t2",
  });
  expect(statuses.at(-1)).toBe('explorer "task of explorer": turn 1 · 3 tools · ls .');
  sub.handle({
    type: "subagent_end",
    parentToolCallId: "t1",
    agent: "explorer",
    status: "done",
    answer: "x",
    turns: 2,
    usage: { ...emptyUsage(), totalTokens: 1500 },
    durationMs: 2000,
  });
  expect(lines).toEqual(["  ↳ explorer done · 2 turns · 1.5k tokens · 2.0 s"]);
  // The run's own events are not taken.
  expect(sub.handle({ type: "tool_execution_start", toolCallId: "x", toolName: "ls", args: {} })).toBe(false);
});

it("forgets a sub-agent whose task call ended without its end event (an abort)", () => {
  const { sub, statuses } = view();
  sub.handle(start("t1", "a"));
  sub.handle(start("t2", "b"));
  const end = {
    type: "tool_execution_end",
    toolCallId: "t1",
    toolName: "task",
    isError: true,
    durationMs: 1,
  };
  expect(sub.handle({ ...end, result: { content: [], isError: true, terminate: false } } as AgentEvent)).toBe(
    false,
  );
  expect(statuses.at(-1)).toMatch(/^b "task of b"/);
});
