// The page's model of todo lists and sub-agents, without a browser: each todo frame replaces the
// turn's list, history rebuilds it from todo_write calls, and a sub-agent's own tool calls stay
// collapsed under its task card with one summary note.
import { expect, it } from "vitest";
import { applyFrame, historyTurns, newRun, type Turn } from "../src/turns.js";

const fold = (turn: Turn, frames: [string, string, Record<string, unknown>][]) =>
  frames.reduce((t, [id, event, data]) => applyFrame(t, { id, event, data }, 0), turn);

const first = [{ id: "1", content: "Read", status: "in_progress" }];
const second = [{ id: "1", content: "Read", status: "done" }];

it("shows the latest todo list once, and drops malformed entries", () => {
  const turn = fold(newRun("r"), [
    ["1", "todo", { items: first }],
    ["2", "todo", { items: [...second, { id: "x", content: 3, status: "bogus" }] }],
  ]);
  expect(turn.items.filter((item) => item.kind === "todo")).toEqual([{ kind: "todo", entries: second }]);
});

it("collapses a sub-agent's tool calls and notes its end", () => {
  const iteration = { type: "iteration", tool_name: "ls", tool_args: {}, tool_call_id: "ls1" };
  const turn = fold(newRun("r"), [
    [
      "1",
      "step",
      { type: "iteration", status: "start", tool_call_id: "t1", tool_name: "task", tool_args: {} },
    ],
    ["2", "subagent", { status: "running", tool_call_id: "t1", agent: "general" }],
    ["3", "step", { ...iteration, status: "start", parent_tool_call_id: "t1" }],
    ["4", "step", { ...iteration, status: "done", parent_tool_call_id: "t1", observation: "a" }],
    ["5", "subagent", { status: "done", tool_call_id: "t1", agent: "general", turns: 2 }],
  ]);
  expect(
    turn.items.filter((item) => item.kind === "tool").map((item) => item.kind === "tool" && item.name),
  ).toEqual(["task"]);
  expect(turn.items.at(-1)).toEqual({ kind: "note", label: "Sub-agent general", text: "done · 2 turns" });
});

it("rebuilds the todo list from stored todo_write calls", () => {
  const [turn] = historyTurns([
    { role: "user", content: "go" },
    {
      role: "assistant",
      content: [{ type: "toolCall", id: "c1", name: "todo_write", arguments: { todos: first } }],
    },
    { role: "toolResult", toolCallId: "c1", content: [{ type: "text", text: "saved" }] },
    {
      role: "assistant",
      content: [{ type: "toolCall", id: "c2", name: "todo_write", arguments: { todos: second } }],
    },
  ]);
  expect(turn!.items.filter((item) => item.kind === "todo")).toEqual([{ kind: "todo", entries: second }]);
});
