// A served session's sub-agent and todo list over SSE and JSON-RPC: a real `tern serve` child
// process, a scripted OpenAI-compatible model on loopback, plain fetch and the official
// @github/copilot-sdk as clients.
import { CopilotClient, RuntimeConnection, type SessionEvent } from "@github/copilot-sdk";
import { type ScriptServer, serveScript } from "@tern/ai/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { textReply, toolReply } from "./support/replies.js";
import { JSON_TYPE, sseReader, startScriptedServe, startServe } from "./support/serve.js";
import { tempDir } from "./support/tern.js";

// One scripted model per test: a spare reply one test did not use must not answer the next.
let model: ScriptServer;

beforeEach(async () => {
  model = await serveScript();
});

afterEach(async () => {
  await model.close();
});

const post = (base: string, path: string, body: unknown) =>
  fetch(`${base}${path}`, { method: "POST", headers: JSON_TYPE, body: JSON.stringify(body) });

it("streams the todo list and a sub-agent (its tool calls marked with the task call) over SSE", async () => {
  const home = tempDir();
  const work = tempDir();
  const { base } = await startScriptedServe(model.providerUrl, home, work);
  const created = await post(base, "/api/sessions", {});
  const id = ((await created.json()) as { session: { id: string } }).session.id;
  const todos = [{ id: "1", content: "Look around", status: "in_progress" }];
  model.push(
    toolReply([{ id: "todo1", name: "todo_write", args: { todos } }]),
    toolReply([{ id: "task1", name: "task", args: { description: "Look", prompt: "List the files." } }]),
    // The sub-agent.
    toolReply([{ id: "ls1", name: "ls", args: { path: "." } }]),
    textReply("No files."),
    // The parent, and a spare answer for a completion check.
    textReply("Final."),
    textReply("Final."),
  );
  const stream = sseReader(await post(base, `/api/sessions/${id}/messages`, { content: "go" }));
  await stream.until((frame) => frame.event === "done");
  const frames = stream.frames;
  await stream.cancel();

  expect(frames.find((f) => f.event === "todo")?.data).toEqual({ items: todos });
  const sub = frames.filter((f) => f.event === "subagent");
  expect(sub.map((f) => [f.data.status, f.data.tool_call_id, f.data.agent])).toEqual([
    ["running", "task1", "general"],
    ["done", "task1", "general"],
  ]);
  expect(sub[1]!.data.answer).toBe("No files.");
  const ls = frames.filter((f) => f.event === "step" && f.data.tool_call_id === "ls1");
  expect(ls.map((f) => f.data.parent_tool_call_id)).toEqual(["task1", "task1"]);
});

it("shows the sub-agent to the Copilot SDK as subagent.started/completed with its tool calls nested", async () => {
  const home = tempDir();
  const work = tempDir();
  const { rpcPort } = await startServe([
    ...["--rpc-port", "0", "--base-url", model.providerUrl, "--model", "scripted"],
    ...["--home", home, "--cwd", work],
  ]);
  const client = new CopilotClient({ connection: RuntimeConnection.forUri(`127.0.0.1:${rpcPort}`) });
  try {
    const session = await client.createSession({ onPermissionRequest: () => ({ kind: "approve-once" }) });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));
    model.push(
      toolReply([{ id: "task2", name: "task", args: { description: "Look", prompt: "List the files." } }]),
      toolReply([{ id: "ls2", name: "ls", args: { path: "." } }]),
      textReply("No files."),
      textReply("Final."),
      textReply("Final."),
    );
    await session.sendAndWait({ prompt: "go" }, 15_000);
    const started = events.find((event) => event.type === "subagent.started");
    expect(started?.data).toMatchObject({
      toolCallId: "task2",
      agentName: "general",
      agentDescription: "Look",
    });
    const completed = events.find((event) => event.type === "subagent.completed");
    expect(completed?.data).toMatchObject({ toolCallId: "task2", agentName: "general" });
    const ls = events.filter(
      (event) =>
        event.type === "tool.execution_start" && (event.data as { toolCallId?: string }).toolCallId === "ls2",
    );
    expect(ls.map((event) => (event.data as { parentToolCallId?: string }).parentToolCallId)).toEqual([
      "task2",
    ]);
  } finally {
    await client.stop();
  }
});
