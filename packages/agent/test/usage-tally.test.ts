// Usage is counted once per model call whatever the nesting: a routed prompt whose plan step runs a
// sub-agent reports, at every level, exactly the model_call_end events that level made, and the
// Agent's lifetime and per-turn totals agree with the runs' results.
import { fauxToolCall } from "@tern/ai/testing";
import { describe, expect, it } from "vitest";
import { Agent, type AgentEvent } from "../src/index.js";
import { cast, ofType, stepWithSubagent } from "./plan/support.js";

const inputOf = (events: readonly AgentEvent[]) =>
  ofType([...events], "model_call_end").reduce((sum, end) => sum + end.usage.input, 0);

describe("usage tally", () => {
  it("counts every call once: router, planner, step, the step's sub-agent, analysis, synthesis", async () => {
    const actors = cast();
    actors.router.push({ content: [fauxToolCall("choose_strategy", { strategy: "plan", reason: "parts" })] });
    const tools = stepWithSubagent(actors);
    const agent = new Agent({ model: actors.model, streamFn: actors.streamFn, strategy: "auto", tools });
    const events: AgentEvent[] = [];
    agent.subscribe((event) => void events.push(event));

    const result = await agent.prompt("do a");
    expect(result.answer).toBe("done");
    // One run: the router's call is inside its bracket.
    expect(events[0]?.type).toBe("agent_start");
    expect(events.find((event) => event.type === "model_call_start")).toMatchObject({ purpose: "route" });
    expect(events.at(-1)?.type).toBe("agent_end");
    expect(ofType(events, "agent_start")).toHaveLength(1);
    const calls = ofType(events, "model_call_end");
    // route, plan, 2 step turns, 2 sub-agent turns, analyze, synthesis.
    expect(calls).toHaveLength(8);
    expect(result.usage.input).toBeGreaterThan(0);
    expect(result.usage.input).toBe(inputOf(events));
    expect(ofType(events, "agent_end")[0]!.usage).toEqual(result.usage);

    const step = ofType(events, "plan_step_end")[0]!;
    expect(step.usage.input).toBe(inputOf(calls.filter((end) => end.purpose.startsWith("step:a"))));
    const sub = ofType(events, "subagent_end")[0]!;
    expect(sub.usage.input).toBe(inputOf(calls.filter((end) => end.parentToolCallId !== undefined)));
    expect(sub.usage.input).toBeLessThan(step.usage.input);

    // A loop run next: its turns are counted per turn and in the lifetime total.
    actors.loop.push("plain answer");
    const second = await agent.prompt("again", { strategy: "loop" });
    expect(agent.state.usage.total.input).toBe(result.usage.input + second.usage.input);
    expect(agent.state.usage.turns.map((turn) => turn.usage.input)).toEqual([second.usage.input]);
  });
});
