import { createFaux, fauxToolCall } from "@tern/ai/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent, type AgentEvent, type AgentTool, agentLoop, HookRegistry } from "../src/index.js";
import { collect, echoTool, results, textOf, user } from "./helpers.js";

function errors(events: AgentEvent[]) {
  return events.filter((e): e is Extract<AgentEvent, { type: "error" }> => e.type === "error");
}

function echoRun(hooks: HookRegistry, args: Record<string, unknown> = { text: "hi" }, log: string[] = []) {
  const faux = createFaux({ replies: [{ content: [fauxToolCall("echo", args, "c")] }, "final"] });
  const stream = agentLoop(
    [user("go")],
    { messages: [], tools: [echoTool(log)] },
    { model: faux.model, hooks },
  );
  return { faux, stream, log };
}

describe("PreToolUse", () => {
  it("denies a call with a reason the model sees; the tool does not run", async () => {
    const hooks = new HookRegistry();
    hooks.on("PreToolUse", () => ({ decision: "deny", reason: "echo is disabled in this workspace" }), {
      matcher: "ec*",
    });
    const { stream, log, faux } = echoRun(hooks);
    const outcome = await stream.result();
    expect(log).toEqual([]);
    const [result] = results(outcome.messages);
    expect(result!.isError).toBe(true);
    expect(textOf(result)).toBe('Tool call "echo" was denied: echo is disabled in this workspace');
    expect(faux.requests[1]!.context.messages.at(-1)).toMatchObject({ role: "toolResult", isError: true });
  });

  it("skips hooks whose matcher does not match the tool", async () => {
    const hooks = new HookRegistry();
    hooks.on("PreToolUse", () => ({ decision: "deny" }), { matcher: ["bash", "write_*"] });
    const { stream, log } = echoRun(hooks);
    await stream.result();
    expect(log).toEqual(["hi"]);
  });

  it("chains argument rewrites in priority order and lets the first deny win", async () => {
    const hooks = new HookRegistry();
    const order: string[] = [];
    hooks.on(
      "PreToolUse",
      ({ args }) => {
        order.push(`low saw ${args.text}`);
        return { args: { text: `${args.text}+low` } };
      },
      { name: "low", priority: -1 },
    );
    hooks.on(
      "PreToolUse",
      ({ args }) => {
        order.push(`high saw ${args.text}`);
        return { decision: "allow", args: { text: `${args.text}+high` } };
      },
      { name: "high", priority: 10 },
    );
    const { stream, log } = echoRun(hooks);
    await stream.result();
    expect(order).toEqual(["high saw hi", "low saw hi+high"]);
    expect(log).toEqual(["hi+high+low"]);

    const denying = new HookRegistry();
    const ran: string[] = [];
    denying.on("PreToolUse", () => {
      ran.push("first");
      return { decision: "deny", reason: "first says no" };
    });
    denying.on("PreToolUse", () => {
      ran.push("second");
      return { decision: "deny", reason: "second says no" };
    });
    const second = echoRun(denying);
    const outcome = await second.stream.result();
    expect(ran).toEqual(["first"]);
    expect(textOf(results(outcome.messages)[0])).toContain("first says no");
  });

  it("re-validates rewritten arguments", async () => {
    const hooks = new HookRegistry();
    hooks.on("PreToolUse", () => ({ args: { text: 7 } }));
    const { stream, log } = echoRun(hooks);
    const outcome = await stream.result();
    expect(log).toEqual([]);
    expect(textOf(results(outcome.messages)[0])).toMatch(/^Invalid arguments for tool "echo"/);
  });

  it("reports a crashing hook as an event and treats it as no opinion", async () => {
    const hooks = new HookRegistry();
    hooks.on(
      "PreToolUse",
      () => {
        throw new TypeError("policy file missing");
      },
      { name: "policy" },
    );
    const { stream, log } = echoRun(hooks);
    const events = await collect(stream);
    expect(log).toEqual(["hi"]);
    expect(errors(events)).toEqual([
      {
        type: "error",
        source: "hook",
        message: 'PreToolUse hook "policy" failed: TypeError: policy file missing',
        hookEvent: "PreToolUse",
        hookName: "policy",
        toolCallId: "c",
      },
    ]);
  });

  it("denies when a fail-closed hook crashes or times out", async () => {
    const hooks = new HookRegistry();
    hooks.on("PreToolUse", () => new Promise(() => {}), { name: "guard", failClosed: true, timeoutMs: 20 });
    const { stream, log } = echoRun(hooks);
    const events = await collect(stream);
    expect(log).toEqual([]);
    const final = events.at(-1) as Extract<AgentEvent, { type: "agent_end" }>;
    expect(textOf(results(final.messages)[0])).toBe(
      'Tool call "echo" was denied: the guard hook "guard" failed, so the call is denied',
    );
    expect(errors(events)[0]!.message).toBe(
      'PreToolUse hook "guard" failed (fail-closed): hook timed out after 20 ms',
    );
  });

  it("ends the run when a hook terminates a call", async () => {
    const hooks = new HookRegistry();
    hooks.on("PreToolUse", ({ args }) =>
      args.text === "stop" ? { decision: "terminate", reason: "budget spent" } : undefined,
    );
    const faux = createFaux({
      replies: [
        { content: [fauxToolCall("echo", { text: "stop" }, "a"), fauxToolCall("echo", { text: "ok" }, "b")] },
        "unused",
      ],
    });
    const log: string[] = [];
    const outcome = await agentLoop(
      [user("go")],
      { messages: [], tools: [echoTool(log)] },
      { model: faux.model, hooks },
    ).result();
    expect(outcome.stopReason).toBe("stopped_by_hook");
    expect(log).toEqual(["ok"]);
    expect(faux.requests).toHaveLength(1);
    expect(results(outcome.messages).map((r) => textOf(r))).toEqual([
      'Tool call "echo" was stopped: budget spent',
      "echo: ok",
    ]);
  });

  it("cannot be skipped by the model: hooks see every call, sequential or parallel", async () => {
    const hooks = new HookRegistry();
    const seen: string[] = [];
    hooks.on("PreToolUse", ({ toolCallId }) => {
      seen.push(toolCallId);
    });
    const faux = createFaux({
      replies: [
        { content: [fauxToolCall("echo", { text: "1" }, "x"), fauxToolCall("echo", { text: "2" }, "y")] },
        "done",
      ],
    });
    await agentLoop(
      [user("go")],
      { messages: [], tools: [echoTool()] },
      {
        model: faux.model,
        hooks,
        toolExecution: { mode: "sequential" },
      },
    ).result();
    expect(seen).toEqual(["x", "y"]);
  });
});

describe("PostToolUse and PostToolUseFailure", () => {
  it("rewrites a successful result, chaining hooks", async () => {
    const hooks = new HookRegistry();
    hooks.on("PostToolUse", ({ result }) => ({
      result: { content: `${textOf(result as never)} [redacted]` },
    }));
    hooks.on("PostToolUse", ({ result }) => ({ result: { content: textOf(result as never).toUpperCase() } }));
    const { stream } = echoRun(hooks);
    const events = await collect(stream);
    const end = events.find((e) => e.type === "tool_execution_end");
    expect(end).toMatchObject({ result: { content: [{ type: "text", text: "ECHO: HI [REDACTED]" }] } });
    const final = events.at(-1) as Extract<AgentEvent, { type: "agent_end" }>;
    expect(textOf(results(final.messages)[0])).toBe("ECHO: HI [REDACTED]");
  });

  it("runs PostToolUseFailure (not PostToolUse) for a failing tool", async () => {
    const hooks = new HookRegistry();
    const post: string[] = [];
    hooks.on("PostToolUse", () => {
      post.push("success hook");
    });
    hooks.on("PostToolUseFailure", ({ error }) => ({
      result: { content: `${error}\nHint: check the path`, isError: true },
    }));
    const failing: AgentTool<{ path: string }> = {
      name: "read",
      description: "reads",
      parameters: z.object({ path: z.string() }),
      execute: () => {
        throw new Error("ENOENT");
      },
    };
    const faux = createFaux({ replies: [{ content: [fauxToolCall("read", { path: "x" }, "r")] }, "ok"] });
    const outcome = await agentLoop(
      [user("go")],
      { messages: [], tools: [failing] },
      { model: faux.model, hooks },
    ).result();
    expect(post).toEqual([]);
    expect(results(outcome.messages)[0]).toMatchObject({ isError: true });
    expect(textOf(results(outcome.messages)[0])).toBe("Error: ENOENT\nHint: check the path");
  });
});

describe("UserPromptSubmit, Stop and SessionStart", () => {
  it("rewrites the prompt and adds context before the model sees it", async () => {
    const hooks = new HookRegistry();
    hooks.on("UserPromptSubmit", ({ prompt }) => ({
      prompt: prompt.replace("secret", "[x]"),
      additionalContext: "cwd: /repo",
    }));
    const faux = createFaux({ replies: ["ok"] });
    const outcome = await agentLoop(
      [user("my secret plan")],
      { messages: [] },
      { model: faux.model, hooks },
    ).result();
    expect(faux.requests[0]!.context.messages[0]).toMatchObject({
      role: "user",
      content: [
        { type: "text", text: "my [x] plan" },
        { type: "text", text: "cwd: /repo" },
      ],
    });
    expect(outcome.messages[0]).toEqual({ ...faux.requests[0]!.context.messages[0], pinned: true });
  });

  it("blocks a prompt without calling the model", async () => {
    const hooks = new HookRegistry();
    hooks.on("UserPromptSubmit", () => ({ decision: "block", reason: "contains a credential" }));
    const faux = createFaux({ replies: ["unused"] });
    const outcome = await agentLoop(
      [user("key=sk-123")],
      { messages: [] },
      { model: faux.model, hooks },
    ).result();
    expect(outcome).toMatchObject({
      stopReason: "stopped_by_hook",
      errorMessage: "The prompt was blocked: contains a credential",
      messages: [],
    });
    expect(faux.requests).toHaveLength(0);
  });

  it("lets a Stop hook block the stop once; its reason becomes a follow-up", async () => {
    const hooks = new HookRegistry();
    const active: boolean[] = [];
    hooks.on("Stop", ({ stopHookActive }) => {
      active.push(stopHookActive);
      return stopHookActive ? undefined : { decision: "block", reason: "Run the tests before you finish." };
    });
    const faux = createFaux({ replies: ["done", "tests pass, done"] });
    const events = await collect(agentLoop([user("fix it")], { messages: [] }, { model: faux.model, hooks }));
    expect(active).toEqual([false, true]);
    expect(faux.requests[1]!.context.messages.at(-1)).toMatchObject({
      role: "user",
      content: "Run the tests before you finish.",
    });
    expect(events.filter((e) => e.type === "inject")).toMatchObject([
      { kind: "follow_up", content: "Run the tests before you finish." },
    ]);
    expect(events.at(-1)).toMatchObject({ type: "agent_end", answer: "tests pass, done", iterations: 2 });
  });

  it("runs SessionStart hooks and reports their failures", async () => {
    const hooks = new HookRegistry();
    hooks.on("SessionStart", ({ source }) => ({ additionalContext: `started from ${source}` }));
    hooks.on("SessionStart", () => {
      throw new Error("no git");
    });
    const failures: string[] = [];
    const added = await hooks.runSessionStart({ source: "resume" }, (f) => {
      failures.push(f.message);
    });
    expect(added).toEqual(["started from resume"]);
    expect(failures).toEqual(["Error: no git"]);
  });

  it("words a SessionStart failure like every other hook failure, fail-closed marked the same way", async () => {
    const hooks = new HookRegistry();
    hooks.register({
      event: "SessionStart",
      name: "git",
      failClosed: true,
      handler: () => {
        throw new Error("no git");
      },
    });
    const agent = new Agent({ model: createFaux({ replies: ["hi"] }).model, hooks });
    const errors: AgentEvent[] = [];
    agent.subscribe((event) => {
      if (event.type === "error") errors.push(event);
    });
    await agent.prompt("go");
    expect(errors).toEqual([
      {
        type: "error",
        source: "hook",
        message: 'SessionStart hook "git" failed (fail-closed): Error: no git',
        hookEvent: "SessionStart",
        hookName: "git",
      },
    ]);
  });

  it("unregisters hooks", async () => {
    const hooks = new HookRegistry();
    const off = hooks.on("PreToolUse", () => ({ decision: "deny" }));
    off();
    expect(hooks.count("PreToolUse")).toBe(0);
    const { stream, log } = echoRun(hooks);
    await stream.result();
    expect(log).toEqual(["hi"]);
  });
});
