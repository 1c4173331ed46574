import { describe, expect, it } from "vitest";
import { type AgentEvent, planCheckpoint, taskTool, userMessage } from "../../src/index.js";
import { runPlan } from "../../src/plan/run-plan.js";
import type { PlanRunConfig } from "../../src/plan/types.js";
import { deterministic } from "../helpers.js";
import {
  analysisReply,
  call,
  cast,
  latchTool,
  ofType,
  plan,
  planReply,
  stepEnds,
  waitTool,
} from "./support.js";

/** A `lookup` tool that answers with how often it ran. */
function countingLookup() {
  let count = 0;
  return {
    name: "lookup",
    description: "Looks up",
    parameters: { type: "object", properties: { q: { type: "string" } } },
    execute: () => `found ${++count}`,
    runs: () => count,
  };
}

/** Two independent steps that each call `lookup` with the same arguments. */
async function lookupTwice(actors: ReturnType<typeof cast>, run: () => Promise<unknown>) {
  actors.planner.push(planReply(plan(["a", []], ["b", []])));
  actors.step("a").push(call("lookup", { q: "x" }), "A");
  actors.step("b").push(call("lookup", { q: "x" }), "B");
  actors.analyzer.push(analysisReply(true, 1));
  actors.synth.push("ok");
  await run();
}

function setup(actors = cast(), extra: Partial<PlanRunConfig> = {}) {
  const events: AgentEvent[] = [];
  const config: PlanRunConfig = {
    model: actors.model,
    streamFn: actors.streamFn,
    ...deterministic(),
    ...extra,
  };
  const run = (goal = "the goal", signal?: AbortSignal, more: Partial<PlanRunConfig> = {}) =>
    runPlan(goal ? [userMessage(goal, 0)] : [], { ...config, ...more }, (e) => void events.push(e), signal);
  return { actors, events, run };
}

function requestText(request: { context: { messages: { content: unknown }[] } }): string {
  return request.context.messages
    .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)))
    .join("\n");
}

describe("plan mode", () => {
  it("runs a diamond with the two middle steps at the same time and feeds results forward", async () => {
    const entered: string[] = [];
    const { actors, events, run } = setup(cast(), { tools: [latchTool(2, entered)] });
    actors.planner.push(planReply(plan(["a", []], ["b", ["a"]], ["c", ["a"]], ["d", ["b", "c"]])));
    actors.step("a").push("A found 1");
    actors.step("b").push(call("latch", { tag: "b" }), "B found 2");
    actors.step("c").push(call("latch", { tag: "c" }), "C found 3");
    actors.step("d").push("D combined 2 and 3");
    actors.analyzer.push(analysisReply(true, 0.9));
    actors.synth.push("The answer is 5.");

    const result = await run();

    expect(result.stopReason).toBe("stop");
    expect(result.answer).toBe("The answer is 5.");
    expect(stepEnds(events)).toEqual({ a: "done", b: "done", c: "done", d: "done" });
    // Overlap: the latch opens only once both b and c are inside it, so each started before the other ended.
    expect(entered.sort()).toEqual(["b", "c"]);
    // Each forwarded tool call names its step.
    expect(
      ofType(events, "tool_execution_start")
        .map((e) => e.stepId)
        .sort(),
    ).toEqual(["b", "c"]);
    const order = events.flatMap((e) =>
      e.type === "plan_step_start"
        ? [`start:${e.stepId}`]
        : e.type === "plan_step_end"
          ? [`end:${e.stepId}`]
          : [],
    );
    expect(order.indexOf("start:c")).toBeLessThan(order.indexOf("end:b"));
    expect(order.indexOf("start:b")).toBeLessThan(order.indexOf("end:c"));
    expect(order.indexOf("end:a")).toBeLessThan(order.indexOf("start:b"));
    expect(order.at(-1)).toBe("end:d");
    const dPrompt = requestText(actors.step("d").requests[0] as never);
    expect(dPrompt).toContain("B found 2");
    expect(dPrompt).toContain("C found 3");
    expect(dPrompt).toContain("do not re-run the tools that produced these");
    expect(dPrompt).toContain("The overall goal:\nthe goal");
    const purposes = new Set(ofType(events, "model_call_start").map((e) => e.purpose));
    expect([...purposes].sort()).toEqual([
      "analyze",
      "plan",
      "step:a",
      "step:b",
      "step:c",
      "step:d",
      "synthesis",
    ]);
    const summed = ofType(events, "model_call_end").reduce((n, e) => n + e.usage.totalTokens, 0);
    expect(result.usage.totalTokens).toBe(summed);
    expect(summed).toBeGreaterThan(0);
    const ends = ofType(events, "plan_step_end");
    expect(ends.reduce((n, e) => n + e.usage.totalTokens, 0)).toBeLessThan(summed);
    expect(result.messages.map((m) => (m as { role: string }).role)).toEqual(["user", "assistant"]);
    expect(events[0]?.type).toBe("agent_start");
    expect(events.at(-1)?.type).toBe("agent_end");
  });

  it("runs no more steps at once than the concurrency limit", async () => {
    const entered: string[] = [];
    const { actors, events, run } = setup(cast(), { concurrency: 1, tools: [latchTool(1, entered)] });
    actors.planner.push(planReply(plan(["a", []], ["b", []])));
    actors.step("a").push("A");
    actors.step("b").push("B");
    actors.analyzer.push(analysisReply(true, 1));
    actors.synth.push("done");
    await run();
    const order = events.flatMap((e) =>
      e.type === "plan_step_start" || e.type === "plan_step_end" ? [`${e.type}:${e.stepId}`] : [],
    );
    expect(order).toEqual(["plan_step_start:a", "plan_step_end:a", "plan_step_start:b", "plan_step_end:b"]);
  });

  it("skips the dependents of a failed step and still runs the independent ones", async () => {
    const { actors, events, run } = setup();
    actors.planner.push(planReply(plan(["a", []], ["b", ["a"]], ["c", ["b"]], ["x", []])));
    actors.step("a").push({ error: { kind: "invalid_request", message: "boom" } });
    actors.step("x").push("X worked");
    actors.analyzer.push(analysisReply(false, 0.9, "a failed"));
    actors.synth.push("Not achieved; x found: X worked");
    const result = await run();
    expect(stepEnds(events)).toEqual({ a: "failed", b: "skipped", c: "skipped", x: "done" });
    const b = ofType(events, "plan_step_end").find((e) => e.stepId === "b");
    expect(b?.error).toContain('"a"');
    expect(actors.step("b").requests).toHaveLength(0);
    expect(result.stopReason).toBe("stop");
    // Not achieved with high confidence: no replan; the synthesis is told to say so.
    expect(ofType(events, "plan_replan")).toHaveLength(0);
    expect(requestText(actors.synth.requests[0] as never)).toContain("NOT fully achieved");
  });

  it.each([
    ["a cycle", plan(["a", ["b"]], ["b", ["a"]]), "cycle: a -> b -> a"],
    ["an unknown dependency", plan(["a", ["zz"]]), 'depends on "zz", which is not a step'],
    ["duplicate ids", plan(["a", []], ["a", []]), 'Step id "a" is used by more than one step'],
    ["an empty plan", { steps: [] }, "The plan has no steps"],
  ])("reports %s to the planner, which fixes it", async (_name, bad, problem) => {
    const { actors, events, run } = setup();
    actors.planner.push(planReply(bad), planReply(plan(["a", []])));
    actors.step("a").push("A");
    actors.analyzer.push(analysisReply(true, 1));
    actors.synth.push("fine");
    const result = await run();
    expect(result.stopReason).toBe("stop");
    expect(requestText(actors.planner.requests[1] as never)).toContain(problem);
    expect(ofType(events, "plan_start")).toHaveLength(1);
  });

  it("fails the run with the exact problem when the corrected plan is still wrong", async () => {
    const { actors, events, run } = setup();
    actors.planner.push(planReply(plan(["a", ["b"]], ["b", ["a"]])), planReply(plan(["a", ["a"]])));
    const result = await run();
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toContain('Step "a" depends on itself');
    expect(ofType(events, "plan_start")).toHaveLength(0);
    expect(events.at(-1)?.type).toBe("agent_end");
  });

  it("runs a single-step plan", async () => {
    const { actors, run } = setup();
    actors.planner.push(planReply(plan(["only", []])));
    actors.step("only").push("it is 4");
    actors.analyzer.push(analysisReply(true, 0.95));
    actors.synth.push("4");
    expect((await run()).answer).toBe("4");
  });

  it("fails a step past its time limit", async () => {
    const { actors, events, run } = setup(cast(), { tools: [waitTool()], stepTimeoutMs: 20 });
    actors.planner.push(planReply(plan(["slow", []], ["after", ["slow"]])));
    actors.step("slow").push(call("wait"));
    actors.analyzer.push(analysisReply(false, 0.9));
    actors.synth.push("nothing");
    await run();
    const slow = ofType(events, "plan_step_end").find((e) => e.stepId === "slow");
    expect(slow?.status).toBe("failed");
    expect(slow?.error).toContain("time limit");
    expect(stepEnds(events).after).toBe("skipped");
  });

  it("fails a step past its turn limit", async () => {
    const { actors, events, run } = setup(cast(), { tools: [latchTool(1)], stepMaxTurns: 2 });
    actors.planner.push(planReply(plan(["busy", []])));
    actors.step("busy").push(call("latch", { tag: "1" }), call("latch", { tag: "2" }), "never reached");
    actors.analyzer.push(analysisReply(false, 0.9));
    actors.synth.push("nothing");
    await run();
    const busy = ofType(events, "plan_step_end")[0];
    expect(busy?.status).toBe("failed");
    expect(busy?.error).toContain("turn limit (2 turns)");
    expect(actors.step("busy").pending).toBe(1);
  });

  it("stops every running step on abort, then resumes keeping the finished steps", async () => {
    const controller = new AbortController();
    let waiting = 0;
    const onStart = () => {
      if (++waiting === 2) controller.abort();
    };
    const { actors, events, run } = setup(cast(), { tools: [waitTool(onStart)] });
    actors.planner.push(planReply(plan(["a", []], ["b", ["a"]], ["c", ["a"]], ["d", ["b", "c"]])));
    actors.step("a").push("A found 1");
    actors.step("b").push(call("wait"));
    actors.step("c").push(call("wait"));
    const first = await run("the goal", controller.signal);
    expect(first.stopReason).toBe("aborted");
    expect(stepEnds(events)).toMatchObject({ a: "done", b: "aborted", c: "aborted" });

    // The recorded events say where the plan was, after an abort as after a crash (no agent_end).
    const checkpoint = planCheckpoint(events);
    expect(checkpoint?.current?.done.map((o) => o.id)).toEqual(["a"]);
    expect(planCheckpoint(events.filter((e) => e.type !== "agent_end"))).toEqual(checkpoint);

    events.length = 0;
    actors.step("b").push("B");
    actors.step("c").push("C");
    actors.step("d").push("D");
    actors.analyzer.push(analysisReply(true, 1));
    actors.synth.push("resumed answer");
    const second = await run("", undefined, { resume: checkpoint, tools: [] });
    expect(second.answer).toBe("resumed answer");
    expect(actors.step("a").requests).toHaveLength(1); // a was not run again
    expect(actors.planner.requests).toHaveLength(1); // nor planned again
    expect(stepEnds(events)).toEqual({ b: "done", c: "done", d: "done" });
    expect(requestText(actors.step("b").requests[1] as never)).toContain("A found 1");
  });

  it("resumes a plan that stopped after a settled analysis by answering, not replanning", async () => {
    const { actors, events, run } = setup();
    actors.planner.push(planReply(plan(["a", []])));
    actors.step("a").push("A found 1");
    actors.analyzer.push(analysisReply(true, 0.9));
    actors.synth.push("first answer");
    await run();
    // As if the process died while the answer was being written.
    const log = events.slice(
      0,
      events.findIndex((e) => e.type === "answer_start"),
    );
    const checkpoint = planCheckpoint(log);
    expect(checkpoint?.current).toBeUndefined();
    expect(checkpoint?.rounds[0]?.analysis?.achieved).toBe(true);
    events.length = 0;
    actors.synth.push("the answer again");
    const result = await run("", undefined, { resume: checkpoint });
    expect(result.answer).toBe("the answer again");
    expect(actors.planner.requests).toHaveLength(1);
    expect(actors.step("a").requests).toHaveLength(1);
    expect(requestText(actors.synth.requests[1] as never)).toContain("A found 1");
  });

  it("replans after a low-confidence analysis, with the earlier round's results", async () => {
    const { actors, events, run } = setup();
    actors.planner.push(planReply(plan(["a", []])), planReply(plan(["b", []])));
    actors.step("a").push("A partial");
    actors.step("b").push("B rest");
    actors.analyzer.push(analysisReply(false, 0.3, "half done"), analysisReply(true, 0.9));
    actors.synth.push("complete");
    const result = await run();
    expect(result.answer).toBe("complete");
    expect(ofType(events, "plan_replan")).toEqual([
      { type: "plan_replan", round: 2, reason: "low_confidence" },
    ]);
    const second = requestText(actors.planner.requests[1] as never);
    expect(second).toContain("A partial");
    expect(second).toContain("half done");
    expect(ofType(events, "plan_start").map((e) => e.round)).toEqual([1, 2]);
  });

  it("stops replanning after maxRounds and says the goal was not achieved", async () => {
    const { actors, events, run } = setup(cast(), { maxRounds: 2 });
    actors.planner.push(planReply(plan(["a", []])), planReply(plan(["b", []])));
    actors.step("a").push("A");
    actors.step("b").push("B");
    actors.analyzer.push(analysisReply(false, 0.1), analysisReply(false, 0.2));
    actors.synth.push({ error: { kind: "invalid_request", message: "synthesis broke" } });
    const result = await run();
    expect(ofType(events, "plan_analysis")).toHaveLength(2);
    // The synthesis failed: the fallback answer says so and gives what the steps found.
    expect(result.answer).toContain("not fully achieved");
    expect(result.answer).toContain("[b]");
    expect(ofType(events, "answer_end")[0]?.error).toContain("synthesis broke");
    // The deltas after the last answer_start add up to the answer, as in the loop's synthesis.
    const lastStart = events.map((event) => event.type).lastIndexOf("answer_start");
    const deltas = ofType(events.slice(lastStart), "answer_delta").map((event) => event.delta);
    expect(deltas.join("")).toBe(result.answer);
  });

  it("replans when the user speaks during the plan, taking the message into account", async () => {
    let said = false;
    const { actors, events, run } = setup(cast(), {
      getUserMessages: () => {
        if (said) return [];
        said = true;
        return [userMessage("use metric units", 0)];
      },
    });
    actors.planner.push(planReply(plan(["a", []], ["b", ["a"]])), planReply(plan(["c", []])));
    actors.step("a").push("A");
    actors.step("c").push("C in metres");
    actors.analyzer.push(analysisReply(true, 1));
    actors.synth.push("in metres");
    const result = await run();
    expect(result.answer).toBe("in metres");
    expect(ofType(events, "plan_replan")).toEqual([
      { type: "plan_replan", round: 2, reason: "user_message", message: "use metric units" },
    ]);
    expect(actors.step("b").requests).toHaveLength(0); // no new step started after the message
    expect(requestText(actors.planner.requests[1] as never)).toContain("use metric units");
    expect(requestText(actors.step("c").requests[0] as never)).toContain("use metric units");
  });

  it("runs a cacheable tool once per plan for the same arguments", async () => {
    const lookup = countingLookup();
    const { actors, run } = setup(cast(), {
      tools: [lookup],
      cacheableTools: (tool) => tool.name === "lookup",
      concurrency: 1,
    });
    await lookupTwice(actors, run);
    expect(lookup.runs()).toBe(1);
    expect(requestText(actors.step("b").requests[1] as never)).toContain("found 1");
  });

  it("caches no tool unless the plan's options name it", async () => {
    const lookup = countingLookup();
    const { actors, run } = setup(cast(), { tools: [lookup], concurrency: 1 });
    await lookupTwice(actors, run);
    expect(lookup.runs()).toBe(2);
    expect(requestText(actors.step("b").requests[1] as never)).toContain("found 2");
  });

  it("passes on a step's sub-agents (task calls) with the step's id", async () => {
    const actors = cast();
    const task = taskTool({ model: actors.model, streamFn: actors.streamFn, tools: [] });
    const { events, run } = setup(actors, { tools: [task] });
    actors.planner.push(planReply(plan(["a", []])));
    actors.step("a").push(call("task", { description: "Look", prompt: "look into it" }), "A");
    // The sub-agent's request belongs to no plan actor: the plain loop script answers it.
    actors.loop.push("looked");
    actors.analyzer.push(analysisReply(true, 1));
    actors.synth.push("ok");
    await run();
    const taskCall = ofType(events, "tool_execution_start").find((e) => e.toolName === "task")!;
    expect(taskCall.stepId).toBe("a");
    expect(ofType(events, "subagent_start")).toEqual([
      expect.objectContaining({ parentToolCallId: taskCall.toolCallId, stepId: "a", depth: 1 }),
    ]);
    expect(ofType(events, "subagent_end")).toEqual([
      expect.objectContaining({
        parentToolCallId: taskCall.toolCallId,
        stepId: "a",
        status: "done",
        answer: "looked",
      }),
    ]);
    // The sub-agent's model call is counted in the step's usage, as a forwarded call of that step.
    const subCall = ofType(events, "model_call_end").find((e) => e.parentToolCallId === taskCall.toolCallId);
    expect(subCall?.purpose).toBe("step:a");
  });

  it("runs a step on the model its hint names", async () => {
    const actors = cast();
    const fast = { ...actors.model, id: "fast-model" };
    const { events, run } = setup(actors, { roles: { fast } });
    actors.planner.push(
      planReply(plan(["a", [], { model_hint: "fast" }], ["b", [], { model_hint: "reasoning" }])),
    );
    actors.step("a").push("A");
    actors.step("b").push("B");
    actors.analyzer.push(analysisReply(true, 1));
    actors.synth.push("ok");
    await run();
    const models = Object.fromEntries(ofType(events, "plan_step_start").map((e) => [e.stepId, e.model]));
    expect(models).toEqual({ a: "fast-model", b: actors.model.id });
  });
});
