// The permission policy in a real agent run: the faux model asks for real tool calls, the
// PreToolUse hook decides, and the denial reason reaches the model as a tool result.

import { stat } from "node:fs/promises";
import path from "node:path";
import { Agent, agentLoop, HookRegistry } from "@tern/agent";
import type { Message, ToolResultMessage } from "@tern/ai";
import { createFaux, fauxToolCall } from "@tern/ai/testing";
import { describe, expect, it } from "vitest";
import { installPermissions, type PermissionRequest } from "../src/index.js";
import { workspace } from "./support.js";

function resultsIn(messages: readonly Message[]): ToolResultMessage[] {
  return messages.filter((m): m is ToolResultMessage => m.role === "toolResult");
}

function text(result: ToolResultMessage | undefined): string {
  return (result?.content ?? []).map((part) => (part.type === "text" ? part.text : "")).join("");
}

describe("permissions in an agent run", () => {
  it("denies without a terminal and tells the model why; allowed and read calls run", async () => {
    const ws = await workspace({ "a.txt": "hello\n", "build/out.js": "x" });
    const hooks = new HookRegistry();
    installPermissions(hooks, { mode: "ask", allow: ["bash(echo:*)"], tools: ws.tools, root: ws.root });
    const faux = createFaux({
      replies: [
        {
          content: [
            fauxToolCall("read", { path: "a.txt" }, "r1"),
            fauxToolCall("bash", { command: "rm -rf build" }, "b1"),
            fauxToolCall("bash", { command: "echo allowed" }, "b2"),
            fauxToolCall("write", { path: "new.txt", content: "x" }, "w1"),
          ],
        },
        "The cleanup needs your permission.",
      ],
    });
    const run = agentLoop(
      [{ role: "user", content: "clean up", timestamp: 0 }],
      { messages: [], tools: ws.tools },
      {
        model: faux.model,
        hooks,
      },
    );
    const result = await run.result();
    expect(result.stopReason).toBe("stop");

    // What the model saw on its second call.
    const seen = resultsIn(faux.requests[1]!.context.messages);
    expect(seen.map((r) => [r.toolCallId, r.isError])).toEqual([
      ["r1", false],
      ["b1", true],
      ["b2", false],
      ["w1", true],
    ]);
    expect(text(seen[0])).toBe("     1\thello");
    expect(text(seen[1])).toBe(
      'Tool call "bash" was denied: bash needs the user\'s permission (allow it with --allow-tool \'bash(rm -rf build)\'); tern runs without a terminal to ask (permission mode "ask"), so it was denied. ' +
        "Do not retry it; use an allowed tool, or finish and tell the user what you need and why. Allowed without asking: read, ls, glob, grep, bash(echo:*), read-only bash commands.",
    );
    expect(text(seen[2])).toBe("allowed\n\nExit code: 0");
    expect(text(seen[3])).toContain('Tool call "write" was denied: write needs the user\'s permission');
    // The denied calls really did not run.
    expect((await stat(path.join(ws.root, "build/out.js"))).isFile()).toBe(true);
    await expect(stat(path.join(ws.root, "new.txt"))).rejects.toThrow();
  });

  it("asks through the callback and passes the user's answer on (Agent class)", async () => {
    const ws = await workspace({ "a.txt": "one\n" });
    const hooks = new HookRegistry();
    const asked: PermissionRequest[] = [];
    installPermissions(hooks, {
      tools: ws.tools,
      root: ws.root,
      ask: (request) => {
        asked.push(request);
        return request.toolName === "edit" ? true : { allow: false, reason: "no network today" };
      },
    });
    const faux = createFaux({
      replies: [
        {
          content: [
            fauxToolCall("edit", { path: "a.txt", edits: [{ oldText: "one", newText: "two" }] }, "e1"),
            fauxToolCall("bash", { command: "curl example.com" }, "b1"),
          ],
        },
        "ok",
      ],
    });
    const agent = new Agent({ model: faux.model, tools: ws.tools, hooks });
    await agent.prompt("go");
    // The two calls run in parallel; the policy asks one question at a time, in arrival order.
    expect(asked.map((r) => r.summary).sort()).toEqual([
      "bash: curl example.com",
      "edit a.txt (1 replacement)",
    ]);
    const seen = resultsIn(faux.requests[1]!.context.messages);
    expect(seen[0]!.isError).toBe(false);
    expect(text(seen[0])).toContain("+two");
    expect(text(seen[1])).toBe(
      'Tool call "bash" was denied: the user said no: no network today. Do not retry it; ask the user how to proceed if you need it.',
    );
  });

  it("runs after other PreToolUse hooks and judges the arguments they rewrote", async () => {
    const ws = await workspace({ "keep/file.txt": "x" });
    const hooks = new HookRegistry();
    installPermissions(hooks, { mode: "bypass", deny: ["bash(rm:*)"] });
    // Registered later with the default priority, yet the permission hook still runs last.
    hooks.on("PreToolUse", () => ({ args: { command: "rm -rf keep" } }), { name: "rewriter" });
    const faux = createFaux({
      replies: [{ content: [fauxToolCall("bash", { command: "echo hi" }, "b1")] }, "done"],
    });
    const result = await agentLoop(
      [{ role: "user", content: "x", timestamp: 0 }],
      { messages: [], tools: ws.tools },
      {
        model: faux.model,
        hooks,
      },
    ).result();
    const seen = resultsIn(result.messages as Message[]);
    expect(text(seen[0])).toBe(
      'Tool call "bash" was denied: the permission rule "bash(rm:*)" denies it. Do not retry it; find another way or ask the user.',
    );
    expect((await stat(path.join(ws.root, "keep/file.txt"))).isFile()).toBe(true);
  });
});
