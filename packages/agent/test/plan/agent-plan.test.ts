// Plan mode through the Agent: strategy per agent or per prompt, steering during a plan forces a
// replan, and the agent's state (transcript, usage) reflects the plan run.
import { describe, expect, it } from "vitest";
import { Agent, type AgentEvent } from "../../src/index.js";
import { analysisReply, call, cast, latchTool, ofType, plan, planReply } from "./support.js";

describe("Agent with a strategy", () => {
  it("runs a prompt as a plan, keeps prompt and answer in its messages, and adds up usage", async () => {
    const actors = cast();
    const agent = new Agent({ model: actors.model, streamFn: actors.streamFn, strategy: "plan" });
    const events: AgentEvent[] = [];
    agent.subscribe((e) => void events.push(e));
    actors.planner.push(planReply(plan(["a", []])));
    actors.step("a").push("A");
    actors.analyzer.push(analysisReply(true, 1));
    actors.synth.push("the answer");
    const result = await agent.prompt("goal");
    expect(result.answer).toBe("the answer");
    expect(agent.state.messages.map((m) => (m as { role: string }).role)).toEqual(["user", "assistant"]);
    const summed = ofType(events, "model_call_end").reduce((n, e) => n + e.usage.totalTokens, 0);
    expect(agent.state.usage.total.totalTokens).toBe(summed);
    expect(result.usage.totalTokens).toBe(summed);
  });

  it("lets one prompt choose the plan while the agent's default is the loop", async () => {
    const actors = cast();
    const agent = new Agent({ model: actors.model, streamFn: actors.streamFn });
    actors.loop.push("loop says hi");
    expect((await agent.prompt("hi")).answer).toBe("loop says hi");
    actors.planner.push(planReply(plan(["a", []])));
    actors.step("a").push("A");
    actors.analyzer.push(analysisReply(true, 1));
    actors.synth.push("planned");
    expect((await agent.prompt("research", { strategy: "plan" })).answer).toBe("planned");
  });

  it("turns a steering message sent during the plan into a replan that takes it into account", async () => {
    const actors = cast();
    let agent: Agent | undefined;
    const steerOnce = latchTool(1);
    const execute = steerOnce.execute;
    steerOnce.execute = (args, context) => {
      agent?.steer("only European cities");
      return execute(args, context);
    };
    agent = new Agent({
      model: actors.model,
      streamFn: actors.streamFn,
      strategy: "plan",
      tools: [steerOnce],
    });
    const events: AgentEvent[] = [];
    agent.subscribe((e) => void events.push(e));
    actors.planner.push(planReply(plan(["a", []], ["b", ["a"]])), planReply(plan(["c", []])));
    actors.step("a").push(call("latch", { tag: "a" }), "A");
    actors.step("c").push("C");
    actors.analyzer.push(analysisReply(true, 1));
    actors.synth.push("European answer");
    const result = await agent.prompt("list cities");
    expect(result.answer).toBe("European answer");
    expect(ofType(events, "plan_replan")[0]).toMatchObject({
      reason: "user_message",
      message: "only European cities",
    });
    expect(JSON.stringify(actors.planner.requests[1]?.context.messages)).toContain("only European cities");
  });
});
