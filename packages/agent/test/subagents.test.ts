// The task tool through the real loop: a scripted model (faux) answers the parent and its
// sub-agents, told apart by their prompts. Parallelism is shown by a barrier both sub-agents must
// reach, never by timing.

import { createFaux, type FauxReply, type FauxRequest, fauxToolCall } from "@tern/ai/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  type AgentEvent,
  type AgentTool,
  HookRegistry,
  parseAgentProfile,
  runAgentLoop,
  taskTool,
  userMessage,
} from "../src/index.js";
import { echoTool } from "./helpers.js";

const USAGE = { input: 10, output: 2 };

/** Replies by looking at the request: `route` sees the last user text and the tool names offered. */
function router(route: (lastUser: string, tools: string[], req: FauxRequest) => FauxReply) {
  const step = (req: FauxRequest) => {
    const messages = req.context.messages;
    const firstUser = messages.find((m) => m.role === "user");
    const text = typeof firstUser?.content === "string" ? firstUser.content : "";
    const reply = route(
      text,
      (req.context.tools ?? []).map((t) => t.name),
      req,
    );
    return typeof reply === "string" ? { content: reply, usage: USAGE } : { usage: USAGE, ...reply };
  };
  return createFaux({ replies: Array.from({ length: 50 }, () => step) });
}

/** Whether this request already has a tool result in it (the agent's second turn). */
const answered = (req: FauxRequest) => req.context.messages.some((m) => m.role === "toolResult");

function barrier(count: number) {
  let arrived = 0;
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  const tool: AgentTool<{ tag: string }> = {
    name: "meet",
    description: "Waits until every sub-agent arrived",
    parameters: z.object({ tag: z.string() }),
    execute: async ({ tag }) => {
      if (++arrived === count) open();
      await opened;
      return `met ${tag}`;
    },
  };
  return tool;
}

async function run(
  tools: AgentTool[],
  faux: ReturnType<typeof createFaux>,
  prompt = "go",
  hooks?: HookRegistry,
) {
  const events: AgentEvent[] = [];
  const result = await runAgentLoop(
    [userMessage(prompt, 0)],
    { messages: [], tools },
    { model: faux.model, ...(hooks ? { hooks } : {}) },
    (event) => {
      events.push(event);
    },
  );
  return { result, events };
}

describe("task tool", () => {
  it("runs two sub-agents in parallel, nests their events and rolls their usage up", async () => {
    const faux = router((text, _tools, req) => {
      if (text === "go")
        return answered(req)
          ? "both done"
          : {
              content: [
                fauxToolCall("task", { description: "A", prompt: "task A" }, "call-a"),
                fauxToolCall("task", { description: "B", prompt: "task B" }, "call-b"),
              ],
            };
      // A sub-agent: meet the other one, then answer.
      return answered(req) ? `answer of ${text}` : { content: [fauxToolCall("meet", { tag: text })] };
    });
    const base = [barrier(2) as AgentTool];
    const tools = [...base, taskTool({ model: faux.model, tools: base }) as AgentTool];
    const { result, events } = await run(tools, faux);

    expect(result.answer).toBe("both done");
    const taskResults = result.messages.filter((m) => m.role === "toolResult");
    expect(taskResults.map((m) => (m.content[0] as { text: string }).text)).toEqual([
      "answer of task A",
      "answer of task B",
    ]);
    // 2 parent calls + 2 calls per sub-agent, 10 input tokens each.
    expect(result.usage.input).toBe(60);
    const ends = events.filter((e) => e.type === "subagent_end");
    expect(ends.map((e) => [e.parentToolCallId, e.status, e.turns, e.usage.input]).sort()).toEqual([
      ["call-a", "done", 2, 20],
      ["call-b", "done", 2, 20],
    ]);
    const nested = events.filter((e) => e.type === "tool_execution_start" && e.toolName === "meet");
    expect(nested.map((e) => (e as { parentToolCallId?: string }).parentToolCallId).sort()).toEqual([
      "call-a",
      "call-b",
    ]);
    const subCalls = events.filter((e) => e.type === "model_call_end" && e.parentToolCallId !== undefined);
    expect(subCalls).toHaveLength(4);
    // Sub-agents see only their task, not the conversation.
    const childRequest = faux.requests.find((r) => JSON.stringify(r.context.messages).includes("task A"))!;
    expect(childRequest.context.messages[0]).toMatchObject({ role: "user", content: "task A" });
    expect(JSON.stringify(childRequest.context.messages)).not.toContain('"go"');
  });

  it("reports a failing sub-agent as an error result and the parent goes on", async () => {
    const faux = router((text, _tools, req) => {
      if (text === "go")
        return answered(req)
          ? "handled the failure"
          : { content: [fauxToolCall("task", { description: "X", prompt: "fail" }, "call-x")] };
      return { content: "", error: { kind: "invalid_request", message: "model broke" } };
    });
    const tools = [taskTool({ model: faux.model, tools: [] }) as AgentTool];
    const { result, events } = await run(tools, faux);
    expect(result.answer).toBe("handled the failure");
    const end = events.find((e) => e.type === "subagent_end")!;
    expect(end).toMatchObject({ status: "failed", parentToolCallId: "call-x" });
    const taskResult = result.messages.find((m) => m.role === "toolResult")!;
    expect(taskResult.isError).toBe(true);
    expect((taskResult.content[0] as { text: string }).text).toContain(
      "did not finish: the sub-agent ended with error",
    );
  });

  it("stops a sub-agent at its turn limit", async () => {
    const faux = router((text, _tools, req) => {
      if (text === "go")
        return answered(req)
          ? "ok"
          : { content: [fauxToolCall("task", { description: "L", prompt: "loop" })] };
      return { content: [fauxToolCall("echo", { text: "again" })] };
    });
    const tools = [taskTool({ model: faux.model, tools: [echoTool()], maxTurns: 2 }) as AgentTool];
    const { events } = await run(tools, faux);
    const end = events.find((e) => e.type === "subagent_end")!;
    expect(end).toMatchObject({ status: "failed", turns: 2 });
    expect((end as { error: string }).error).toContain("turn limit (2 turns)");
  });

  it("enforces the depth limit: the deepest sub-agent has no task tool, and a direct call is refused", async () => {
    const offered: Record<string, string[]> = {};
    const faux = router((text, tools, req) => {
      offered[text] = tools;
      if (answered(req)) return `done ${text}`;
      if (text === "go") return { content: [fauxToolCall("task", { description: "1", prompt: "level1" })] };
      if (text === "level1")
        return { content: [fauxToolCall("task", { description: "2", prompt: "level2" })] };
      return "leaf";
    });
    const tools = [echoTool() as AgentTool];
    await run([...tools, taskTool({ model: faux.model, tools, maxDepth: 2 }) as AgentTool], faux);
    expect(offered.go).toEqual(["echo", "task"]);
    expect(offered.level1).toEqual(["echo", "task"]);
    expect(offered.level2).toEqual(["echo"]);

    const deepest = taskTool({ model: faux.model, tools, maxDepth: 1, depth: 1 });
    const refused = await deepest.execute(
      { description: "x", prompt: "x" },
      { signal: new AbortController().signal, toolCallId: "t", onUpdate: async () => {} },
    );
    expect(refused).toMatchObject({
      isError: true,
      content: expect.stringContaining("cannot go deeper than 1 level"),
    });
  });

  it("inherits the parent's hooks (permissions) and narrows tools by profile", async () => {
    const offered: string[][] = [];
    const faux = router((text, tools, req) => {
      if (text === "go")
        return answered(req)
          ? "ok"
          : { content: [fauxToolCall("task", { description: "R", prompt: "read it", agent: "reader" })] };
      offered.push(tools);
      return answered(req) ? "child done" : { content: [fauxToolCall("echo", { text: "secret" })] };
    });
    const hooks = new HookRegistry();
    hooks.on("PreToolUse", () => ({ decision: "deny", reason: "not in this session" }), { matcher: "echo" });
    const profile = parseAgentProfile(
      "reader",
      "---\ndescription: Reads things\ntools: [echo]\n---\nYou read.",
    );
    if (!profile.ok) throw new Error(profile.error);
    const base = [echoTool() as AgentTool, { ...echoTool(), name: "write" } as AgentTool];
    const tools = [
      ...base,
      taskTool({ model: faux.model, tools: base, hooks, profiles: [profile.profile] }) as AgentTool,
    ];
    const { events } = await run(tools, faux, "go", hooks);
    expect(offered[0]).toEqual(["echo"]);
    const childEnd = events.find((e) => e.type === "tool_execution_end" && e.toolName === "echo")!;
    expect(childEnd).toMatchObject({ isError: true, parentToolCallId: expect.any(String) });
    expect(JSON.stringify(childEnd)).toContain("not in this session");
    const child = faux.requests.find((r) => r.context.systemPrompt === "You read.");
    expect(child).toBeDefined();
  });

  it("reads the parent's tools at call time: a tool added later is offered, still narrowed by profile", async () => {
    const offered: Record<string, string[]> = {};
    const faux = router((text, tools, req) => {
      offered[text] = tools;
      if (answered(req)) return `done ${text}`;
      if (text === "go")
        return { content: [fauxToolCall("task", { description: "1", prompt: "level1", agent: "reader" })] };
      if (text === "level1")
        return { content: [fauxToolCall("task", { description: "2", prompt: "level2" })] };
      return { content: [fauxToolCall("mcp__docs__lookup", { text: "x" })] };
    });
    const profile = parseAgentProfile(
      "reader",
      "---\ndescription: Reads things\ntools: [mcp__docs__lookup, task, missing]\n---\nYou read.",
    );
    if (!profile.ok) throw new Error(profile.error);
    const parent: AgentTool[] = [echoTool() as AgentTool];
    const hooks = new HookRegistry();
    hooks.on("PreToolUse", () => ({ decision: "deny", reason: "asked the policy" }), {
      matcher: "mcp__docs__lookup",
    });
    const task = taskTool({
      model: faux.model,
      tools: () => parent,
      hooks,
      profiles: [profile.profile],
      maxDepth: 3,
    }) as AgentTool;
    // Joins after the task tool was made, as MCP tools do between turns.
    parent.push({ ...echoTool(), name: "mcp__docs__lookup" } as AgentTool, task);
    const { events } = await run(parent, faux, "go", hooks);
    expect(offered.go).toEqual(["echo", "mcp__docs__lookup", "task"]);
    // The profile's list narrows (echo is not on it) and adds nothing the parent lacks ("missing").
    expect(offered.level1).toEqual(["mcp__docs__lookup", "task"]);
    // A sub-agent's own (general) sub-agent gets no more than that sub-agent had: no echo.
    expect(offered.level2).toEqual(["mcp__docs__lookup", "task"]);
    // The later tool's calls pass the shared hooks (the permission policy) like any other.
    const denied = events.find((e) => e.type === "tool_execution_end" && e.toolName === "mcp__docs__lookup");
    expect(denied).toMatchObject({ isError: true, parentToolCallId: expect.any(String) });
    expect(JSON.stringify(denied)).toContain("asked the policy");
  });

  it("refuses an unknown profile and a profile whose model is unknown", async () => {
    const profile = parseAgentProfile("fast", "---\ndescription: Fast\nmodel: tiny-1\n---\nBe quick.");
    if (!profile.ok) throw new Error(profile.error);
    const tool = taskTool({ model: createFaux().model, tools: [], profiles: [profile.profile] });
    const ctx = { signal: new AbortController().signal, toolCallId: "t", onUpdate: async () => {} };
    expect(await tool.execute({ description: "d", prompt: "p", agent: "nope" }, ctx)).toMatchObject({
      isError: true,
      content: 'There is no agent "nope". Agents: general, fast.',
    });
    expect(await tool.execute({ description: "d", prompt: "p", agent: "fast" }, ctx)).toMatchObject({
      isError: true,
      content: expect.stringContaining('asks for the model "tiny-1"'),
    });
  });
});

describe("agent profiles", () => {
  it("parses front matter and body", () => {
    const parsed = parseAgentProfile(
      "reviewer",
      "---\ndescription: Reviews diffs\nmodel: claude-x\ntools: read, grep\nmaxTurns: 5\n---\n\nYou review code.\n",
      "/p/reviewer.md",
    );
    expect(parsed).toEqual({
      ok: true,
      profile: {
        name: "reviewer",
        description: "Reviews diffs",
        model: "claude-x",
        tools: ["read", "grep"],
        maxTurns: 5,
        systemPrompt: "You review code.",
        source: "/p/reviewer.md",
      },
    });
  });

  it("gives a clear error for each kind of bad profile", () => {
    const bad: [string, string, string][] = [
      ["a", "no front matter", "no front matter"],
      ["a", "---\ndescription: [unclosed\n---\nbody", "not valid YAML"],
      ["a", "---\nmodel: x\n---\nbody", "description"],
      ["a", "---\ndescription: d\ncolour: red\n---\nbody", "colour"],
      ["a", "---\ndescription: d\n---\n", "body (the system prompt) is empty"],
      ["a", "---\ndescription: d\nmaxTurns: -1\n---\nbody", "maxTurns"],
      ["bad name", "---\ndescription: d\n---\nbody", "must be letters"],
    ];
    for (const [name, text, message] of bad) {
      const parsed = parseAgentProfile(name, text);
      expect(parsed.ok, text).toBe(false);
      expect((parsed as { error: string }).error, text).toContain(message);
    }
  });
});

describe("task tool abort", () => {
  it("stops the sub-agent with the run; the task call ends as aborted", async () => {
    const outer = new AbortController();
    const hang: AgentTool = {
      name: "hang",
      description: "Waits until aborted",
      parameters: z.object({}),
      execute: (_args, { signal }) =>
        new Promise((resolve) => {
          signal.addEventListener("abort", () => resolve("stopped"), { once: true });
          outer.abort();
        }),
    };
    const faux = router((text, _tools, req) => {
      if (text === "go")
        return { content: [fauxToolCall("task", { description: "H", prompt: "hang" }, "call-h")] };
      return answered(req) ? "never" : { content: [fauxToolCall("hang", {})] };
    });
    const events: AgentEvent[] = [];
    const result = await runAgentLoop(
      [userMessage("go", 0)],
      { messages: [], tools: [taskTool({ model: faux.model, tools: [hang] }) as AgentTool] },
      { model: faux.model },
      (event) => {
        events.push(event);
      },
      outer.signal,
    );
    expect(result.stopReason).toBe("aborted");
    expect(events.some((e) => e.type === "subagent_start")).toBe(true);
    const end = events.find((e) => e.type === "tool_execution_end" && e.toolCallId === "call-h");
    expect(end).toMatchObject({ isError: true });
  });
});
