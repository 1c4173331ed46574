// The mapper from tern's events to ACP updates, for what the end-to-end tests do not reach with a
// scripted model: the plan from todo_write and from plan mode's steps, sub-agent calls kept out
// of the editor's list, and the prompt blocks an editor sends (images, attached files, links).
import type { AgentEvent } from "@tern/agent";
import { createFaux } from "@tern/ai/testing";
import { describe, expect, it } from "vitest";
import { promptContent } from "../src/acp/session.js";
import { agentUpdates, toolKind } from "../src/acp/updates.js";

const model = createFaux({ id: "faux", replies: [] }).model;
const ROOT = "/work/project";

describe("ACP updates", () => {
  it("turns todo_write's list into the plan", () => {
    const map = agentUpdates(ROOT, model);
    const todos = [
      { id: "1", content: "read the code", status: "done" },
      { id: "2", content: "fix the bug", status: "in_progress" },
      { id: "3", content: "run the tests", status: "pending" },
    ];
    const updates = map({
      type: "tool_execution_start",
      toolCallId: "t",
      toolName: "todo_write",
      args: { todos },
    });
    expect(updates[0]).toMatchObject({ sessionUpdate: "tool_call", kind: "think", status: "pending" });
    expect(updates[1]).toEqual({
      sessionUpdate: "plan",
      entries: [
        { content: "read the code", priority: "medium", status: "completed" },
        { content: "fix the bug", priority: "medium", status: "in_progress" },
        { content: "run the tests", priority: "medium", status: "pending" },
      ],
    });
  });

  it("follows plan mode's steps in the plan", () => {
    const map = agentUpdates(ROOT, model);
    const steps = [
      { id: "a", task: "find the bug", dependencies: [], tool_hint: null, model_hint: null },
      { id: "b", task: "fix it", dependencies: ["a"], tool_hint: null, model_hint: null },
      { id: "c", task: "test it", dependencies: ["b"], tool_hint: null, model_hint: null },
    ];
    map({ type: "plan_start", round: 1, goal: "fix", steps, timestamp: 0 });
    map({ type: "plan_step_start", round: 1, stepId: "a", task: "find the bug", model: "m", timestamp: 0 });
    const end = (stepId: string, status: string) =>
      map({ type: "plan_step_end", round: 1, stepId, status } as unknown as AgentEvent);
    const [first] = end("a", "done");
    const [plan] = end("b", "failed");
    // What was sent stays as it was sent.
    expect(first).toMatchObject({
      entries: [{ status: "completed" }, { content: "fix it", status: "pending" }, {}],
    });
    expect(plan).toEqual({
      sessionUpdate: "plan",
      entries: [
        { content: "find the bug", priority: "medium", status: "completed" },
        { content: "fix it (failed)", priority: "medium", status: "completed" },
        { content: "test it", priority: "medium", status: "pending" },
      ],
    });
  });

  it("keeps a sub-agent's own tool calls out of the editor's list", () => {
    const map = agentUpdates(ROOT, model);
    expect(
      map({
        type: "tool_execution_start",
        toolCallId: "s",
        toolName: "read",
        args: {},
        parentToolCallId: "task1",
      }),
    ).toEqual([]);
  });

  it("maps tern's tools to ACP's kinds, anything else to other", () => {
    expect(["read", "edit", "write", "grep", "bash", "web_fetch", "mcp__x__y"].map(toolKind)).toEqual([
      "read",
      "edit",
      "edit",
      "search",
      "execute",
      "fetch",
      "other",
    ]);
  });

  it("reads an editor's prompt: text, images, attached files and links", () => {
    const { text, images } = promptContent([
      { type: "text", text: "fix this" },
      { type: "image", data: "aGk=", mimeType: "image/png" },
      { type: "resource", resource: { uri: "file:///work/project/a.ts", text: "let a = 1;" } },
      { type: "resource_link", name: "b.ts", uri: "file:///work/project/b.ts" },
    ]);
    expect(images).toEqual([{ type: "image", data: "aGk=", mimeType: "image/png" }]);
    expect(text).toBe(
      'fix this\n\n<file uri="file:///work/project/a.ts">\nlet a = 1;\n</file>\n\n[b.ts](file:///work/project/b.ts)',
    );
  });
});
