// todo_write: validation of the whole list, and recovering the list from a transcript on resume.

import type { AgentMessage } from "@tern/agent";
import { describe, expect, it } from "vitest";
import { latestTodos, todoWriteTool } from "../src/index.js";
import { callTool } from "./support.js";

const tools = [todoWriteTool()];
const write = (todos: unknown) => callTool(tools, "todo_write", { todos });

describe("todo_write", () => {
  it("saves a valid list and hands it to UIs in details", async () => {
    const todos = [
      { id: "1", content: "Read the code", status: "done" },
      { id: "2", content: "Fix the bug", status: "in_progress" },
      { id: "3", content: "Run the tests", status: "pending" },
    ];
    const result = await write(todos);
    expect(result).toMatchObject({ isError: false, details: { items: todos } });
    expect(result.text).toBe("Todo list saved: 3 items, 1 done, in progress: Fix the bug.");
  });

  it("refuses two items in progress, duplicate ids, bad statuses and empty content", async () => {
    const two = await write([
      { id: "a", content: "x", status: "in_progress" },
      { id: "b", content: "y", status: "in_progress" },
    ]);
    expect(two.isError).toBe(true);
    expect(two.text).toContain("2 items are in_progress (a, b); at most one may be");
    const dup = await write([
      { id: "a", content: "x", status: "pending" },
      { id: "a", content: "y", status: "done" },
    ]);
    expect(dup.text).toContain('the id "a" is used twice');
    expect((await write([{ id: "a", content: "x", status: "started" }])).isError).toBe(true);
    expect((await write([{ id: "a", content: "  ", status: "pending" }])).text).toContain("content is empty");
    expect((await write("not a list")).isError).toBe(true);
  });

  it("recovers the last successful list from a transcript", () => {
    const call = (id: string, todos: unknown): AgentMessage =>
      ({
        role: "assistant",
        content: [{ type: "toolCall", id, name: "todo_write", arguments: { todos } }],
      }) as unknown as AgentMessage;
    const result = (id: string, isError: boolean): AgentMessage =>
      ({
        role: "toolResult",
        toolCallId: id,
        toolName: "todo_write",
        isError,
        content: [],
      }) as unknown as AgentMessage;
    const good = [{ id: "1", content: "step", status: "pending" }];
    const bad = [
      { id: "1", content: "a", status: "in_progress" },
      { id: "2", content: "b", status: "in_progress" },
    ];
    expect(latestTodos([call("c1", good), result("c1", false), call("c2", bad), result("c2", true)])).toEqual(
      good,
    );
    expect(latestTodos([])).toBeUndefined();
  });
});
