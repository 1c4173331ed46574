import type { Message } from "@tern/ai";
import { createFaux, fauxToolCall } from "@tern/ai/testing";
import { describe, expect, it } from "vitest";
import { Agent, type AgentEvent, HookRegistry } from "../src/index.js";
import { echoTool, expectValidTranscript, textOf, timedTool, tracker } from "./helpers.js";

describe("Agent", () => {
  it("keeps its messages and state from the loop's events", async () => {
    const faux = createFaux({ replies: [{ content: [fauxToolCall("echo", { text: "x" }, "e")] }, "answer"] });
    const agent = new Agent({ model: faux.model, systemPrompt: "sys", tools: [echoTool()] });
    const seen: string[] = [];
    let streamingDuringUpdate = false;
    agent.subscribe((event) => {
      seen.push(event.type);
      if (event.type === "message_update")
        streamingDuringUpdate = agent.state.streamingMessage === event.message;
      if (event.type === "tool_execution_start") expect(agent.state.pendingToolCalls.has("e")).toBe(true);
    });
    const result = await agent.prompt("do it");
    expect(result.stopReason).toBe("stop");
    expect(agent.state.messages.map((m) => (m as Message).role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "assistant",
    ]);
    expect(agent.state.messages).toEqual(result.messages);
    expect(agent.state.isRunning).toBe(false);
    expect(agent.state.streamingMessage).toBeUndefined();
    expect(agent.state.pendingToolCalls.size).toBe(0);
    expect(streamingDuringUpdate).toBe(true);
    expect(seen[0]).toBe("agent_start");
    expect(seen.at(-1)).toBe("agent_end");
    expect(faux.requests[0]!.context.systemPrompt).toBe("sys");

    faux.push("second answer");
    await agent.prompt("again");
    expect(faux.requests[2]!.context.messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "assistant",
      "user",
    ]);
  });

  it("rejects prompt() while running, or queues it as a follow-up when asked", async () => {
    const t = tracker();
    const faux = createFaux({
      replies: [{ content: [fauxToolCall("wait", { ms: 20, tag: "w" }, "w")] }, "first", "second"],
    });
    const agent = new Agent({ model: faux.model, tools: [timedTool("wait", t)] });
    const running = agent.prompt("start");
    expect(agent.state.isRunning).toBe(true);
    await expect(agent.prompt("too soon")).rejects.toThrow(/already running/);
    await expect(agent.continue()).rejects.toThrow(/already running/);
    const queued = agent.prompt("later", { queue: true });
    const [a, b] = await Promise.all([running, queued]);
    expect(b).toBe(a);
    expect(a.answer).toBe("second");
    expect(faux.requests[2]!.context.messages.at(-1)).toMatchObject({ role: "user", content: "later" });
    expect(agent.state.isRunning).toBe(false);
  });

  it("delivers steer() after the batch and followUp() at the end", async () => {
    const t = tracker();
    const faux = createFaux({
      replies: [
        { content: [fauxToolCall("wait", { ms: 20, tag: "w" }, "w")] },
        "after steer",
        "after follow-up",
      ],
    });
    const agent = new Agent({ model: faux.model, tools: [timedTool("wait", t)] });
    agent.subscribe((event) => {
      if (event.type === "tool_execution_start") {
        agent.followUp("one more thing");
        agent.steer("change of plan");
      }
    });
    const result = await agent.prompt("start");
    expect(faux.requests[1]!.context.messages.at(-1)).toMatchObject({ content: "change of plan" });
    expect(faux.requests[2]!.context.messages.at(-1)).toMatchObject({ content: "one more thing" });
    expect(result.answer).toBe("after follow-up");
  });

  it("runs on for a message queued after the loop's last look at the queues, not after an abort", async () => {
    const faux = createFaux({ replies: ["first", "late answer"] });
    const agent = new Agent({ model: faux.model });
    const ends: string[] = [];
    let queuedLate: Promise<unknown> | undefined;
    agent.subscribe((event) => {
      if (event.type !== "agent_end") return;
      ends.push(event.stopReason);
      // The loop has made its last check: this is the moment a message typed as the run ends lands.
      if (ends.length === 1) {
        agent.steer("typed as it ended");
        queuedLate = agent.prompt("and one more", { queue: true });
      }
    });
    const result = await agent.prompt("start");
    expect(ends).toEqual(["stop", "stop"]);
    expect(result.answer).toBe("late answer");
    expect(await queuedLate).toBe(result);
    expect(faux.requests).toHaveLength(2);
    expect(faux.requests[1]!.context.messages.slice(-2)).toMatchObject([
      { role: "user", content: "typed as it ended" },
      { role: "user", content: "and one more" },
    ]);
    expect(agent.queuedMessages).toEqual({ steering: [], followUp: [] });

    // Aborted: what was queued stays queued for the host to deliver or drop.
    faux.push({ content: [fauxToolCall("wait", { ms: 5_000, tag: "w" }, "w")] });
    const agentWithTool = new Agent({ model: faux.model, tools: [timedTool("wait", tracker())] });
    agentWithTool.subscribe((event) => {
      if (event.type !== "tool_execution_start") return;
      agentWithTool.followUp("after the abort");
      agentWithTool.abort();
    });
    expect((await agentWithTool.prompt("long")).stopReason).toBe("aborted");
    expect(agentWithTool.queuedMessages.followUp).toHaveLength(1);
  });

  it("aborts a run, keeps a valid transcript, and can continue afterwards", async () => {
    const t = tracker();
    const faux = createFaux({ replies: [{ content: [fauxToolCall("wait", { ms: 5_000, tag: "w" }, "w")] }] });
    const agent = new Agent({ model: faux.model, tools: [timedTool("wait", t)] });
    agent.subscribe((event) => {
      if (event.type === "tool_execution_start") setTimeout(() => agent.abort(), 5);
    });
    const result = await agent.prompt("start");
    expect(result.stopReason).toBe("aborted");
    expectValidTranscript(agent.state.messages);
    faux.push("resumed");
    const next = await agent.continue();
    expect(next.answer).toBe("resumed");
    await expect(agent.continue()).rejects.toThrow(/Nothing to continue/);
  });

  it("awaits listeners: a slow listener slows the loop and sees every event", async () => {
    const faux = createFaux({ replies: ["a b c d e f"] });
    const agent = new Agent({ model: faux.model });
    const log: string[] = [];
    agent.subscribe(async (event) => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      log.push(`slow:${event.type}`);
    });
    agent.subscribe((event) => {
      log.push(`fast:${event.type}`);
    });
    await agent.prompt("go");
    // Each event reaches the fast listener only after the slow one finished with it.
    for (let i = 0; i < log.length; i += 2) {
      expect(log[i]!.slice(5)).toBe(log[i + 1]!.slice(5));
      expect(log[i]!.startsWith("slow:")).toBe(true);
    }
    expect(log.filter((l) => l.startsWith("slow:"))).toHaveLength(log.length / 2);
    expect(log.at(-1)).toBe("fast:agent_end");
  });

  it("survives a throwing listener", async () => {
    const faux = createFaux({ replies: ["ok"] });
    const failures: unknown[] = [];
    const agent = new Agent({ model: faux.model, onListenerError: (error) => failures.push(error) });
    agent.subscribe((event) => {
      if (event.type === "turn_start") throw new Error("ui crashed");
    });
    const result = await agent.prompt("go");
    expect(result.answer).toBe("ok");
    expect(failures).toHaveLength(1);
  });

  it("keeps usage per turn and in total, with cost", async () => {
    const faux = createFaux({
      replies: [
        { content: [fauxToolCall("echo", { text: "x" }, "e")], usage: { input: 100, output: 20 } },
        { content: "done", usage: { input: 150, output: 10, cacheRead: 50 } },
      ],
    });
    const agent = new Agent({ model: faux.model, tools: [echoTool()] });
    const ends: AgentEvent[] = [];
    agent.subscribe((event) => {
      if (event.type === "agent_end") ends.push(event);
    });
    const result = await agent.prompt("go");
    // Faux prices per million tokens: input 1, output 2, cache read 0.1.
    expect(
      agent.state.usage.turns.map((t) => [t.turn, t.usage.input, t.usage.output, t.usage.cacheRead]),
    ).toEqual([
      [1, 100, 20, 0],
      [2, 150, 10, 50],
    ]);
    expect(agent.state.usage.turns[0]!.usage.cost.total).toBeCloseTo(0.00014, 12);
    expect(agent.state.usage.total).toMatchObject({
      input: 250,
      output: 30,
      cacheRead: 50,
      totalTokens: 330,
    });
    expect(agent.state.usage.total.cost.total).toBeCloseTo(0.000315, 12);
    expect(result.usage).toEqual(agent.state.usage.total);
    expect(ends[0]).toMatchObject({ usage: { input: 250, output: 30, totalTokens: 330 }, iterations: 2 });

    faux.push({ content: "again", usage: { input: 10, output: 1 } });
    const second = await agent.prompt("again");
    expect(second.usage).toMatchObject({ input: 10, output: 1 });
    expect(agent.state.usage.total).toMatchObject({ input: 260, output: 31 });
    expect(agent.state.usage.turns.map((t) => t.turn)).toEqual([1, 2, 3]);
  });

  it("adds SessionStart context to the first prompt only", async () => {
    const hooks = new HookRegistry();
    hooks.on("SessionStart", ({ source }) => ({ additionalContext: `session: ${source}` }));
    const faux = createFaux({ replies: ["one", "two"] });
    const agent = new Agent({ model: faux.model, hooks });
    await agent.prompt("first");
    await agent.prompt("second");
    expect(textOf(faux.requests[0]!.context.messages[0])).toBe("firstsession: startup");
    expect(faux.requests[1]!.context.messages.at(-1)).toMatchObject({ content: "second" });
  });

  it("follows a model switch made by prepareNextTurn", async () => {
    const first = createFaux({ replies: [{ content: [fauxToolCall("echo", { text: "x" }, "e")] }] });
    const second = createFaux({ replies: ["switched"] });
    const agent = new Agent({
      model: first.model,
      tools: [echoTool()],
      prepareNextTurn: ({ turn }) => (turn === 2 ? { model: second.model, thinkingLevel: "low" } : undefined),
    });
    await agent.prompt("go");
    expect(agent.state.model).toBe(second.model);
    expect(agent.state.thinkingLevel).toBe("low");
    expect(agent.state.usage.turns.map((t) => t.model)).toEqual([first.model.id, second.model.id]);
  });

  it("delivers queued steering one message per turn when asked", async () => {
    const faux = createFaux({ replies: ["a", "b"] });
    const agent = new Agent({ model: faux.model, steeringMode: "one-at-a-time" });
    agent.steer(["s1", "s2"].map((text) => ({ role: "user" as const, content: text, timestamp: 0 })));
    await agent.prompt("go");
    expect(faux.requests.map((r) => r.context.messages.map((m) => textOf(m)).join(","))).toEqual([
      "go,s1",
      "go,s1,a,s2",
    ]);
  });

  it("waitForIdle resolves when the run ends", async () => {
    const faux = createFaux({ replies: ["ok"], tokenDelayMs: 1 });
    const agent = new Agent({ model: faux.model });
    await agent.waitForIdle();
    void agent.prompt("go");
    await agent.waitForIdle();
    expect(agent.state.isRunning).toBe(false);
    expect(agent.state.messages).toHaveLength(2);
  });
});
