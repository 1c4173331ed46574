// Malformed planner, analyzer and router replies at every level of structuredCall's degradation
// chain (forced tool call -> JSON mode -> text): each ends as a clear error or a safe default.
import { describe, expect, it } from "vitest";
import { type AgentEvent, userMessage } from "../../src/index.js";
import { runPlan } from "../../src/plan/run-plan.js";
import { runWithStrategy } from "../../src/plan/strategy.js";
import { deterministic } from "../helpers.js";
import { analysisReply, cast, ofType, plan, planReply } from "./support.js";

/** One unusable reply per model call of the chain: tool level, JSON mode and its retry, text and its retry. */
const GARBAGE_AT_EVERY_LEVEL = ["I will not call the tool", "not json", "{still not", "nope", "nope again"];

function run(actors: ReturnType<typeof cast>, maxRounds = 3) {
  const events: AgentEvent[] = [];
  const result = runPlan(
    [userMessage("the goal", 0)],
    { model: actors.model, streamFn: actors.streamFn, maxRounds, ...deterministic() },
    (e) => void events.push(e),
  );
  return { events, result };
}

describe("plan mode with malformed structured replies", () => {
  it("fails with a clear error when no level yields a readable plan", async () => {
    const actors = cast();
    actors.planner.push(...GARBAGE_AT_EVERY_LEVEL);
    const { events, result } = run(actors);
    const end = await result;
    expect(end.stopReason).toBe("error");
    expect(end.errorMessage).toMatch(/^The planner's reply could not be read/);
    expect(end.errorMessage).toContain("tool_call:");
    expect(end.errorMessage).toContain("json_mode:");
    expect(end.errorMessage).toContain("text:");
    expect(ofType(events, "model_call_start").filter((e) => e.purpose === "plan")).toHaveLength(5);
    expect(actors.planner.pending).toBe(0);
  });

  it.each([
    ["the JSON-mode level", 1, '{"steps":[{"id":"a","task":"do a"}]}'],
    ["the JSON-mode retry", 2, '{"steps":[{"id":"a","task":"do a"}]}'],
    ["the text level", 3, 'Here:\n```json\n{"steps":[{"id":"a","task":"do a"}]}\n```'],
    ["the text retry", 4, '{"steps":[{"id":"a","task":"do a","dependencies":[]}]}'],
  ])("reads the plan at %s after the levels before it failed", async (_name, bad, good) => {
    const actors = cast();
    actors.planner.push(...GARBAGE_AT_EVERY_LEVEL.slice(0, bad), good);
    actors.step("a").push("A");
    actors.analyzer.push(analysisReply(true, 1));
    actors.synth.push("answer");
    const { events, result } = run(actors);
    expect((await result).answer).toBe("answer");
    expect(ofType(events, "plan_start")[0]?.steps).toEqual([
      { id: "a", task: "do a", dependencies: [], tool_hint: null, model_hint: null },
    ]);
  });

  it("plans through the text level on a model without tool calls or JSON mode", async () => {
    const actors = cast({ toolCall: false, jsonMode: false });
    actors.planner.push('```json\n{"steps":[{"id":"a","task":"do a"}]}\n```');
    actors.step("a").push("A");
    actors.analyzer.push('{"achieved": true, "confidence": 1, "reasoning": "ok", "final_answer": "A"}');
    actors.synth.push("A it is");
    const { result } = run(actors);
    expect((await result).answer).toBe("A it is");
  });

  it("counts an unreadable analysis as not achieved with confidence 0, never a crash", async () => {
    const actors = cast();
    actors.planner.push(planReply(plan(["a", []])));
    actors.step("a").push("A found");
    actors.analyzer.push(...GARBAGE_AT_EVERY_LEVEL);
    actors.synth.push("Not achieved; A found");
    const { events, result } = run(actors, 1);
    const end = await result;
    expect(end.stopReason).toBe("stop");
    const [analysis] = ofType(events, "plan_analysis");
    expect(analysis).toMatchObject({ achieved: false, confidence: 0, final_answer: null });
    expect(analysis?.reasoning).toMatch(/^The analysis could not be read/);
    expect(ofType(events, "model_call_start").filter((e) => e.purpose === "analyze")).toHaveLength(5);
  });

  it("answers from the steps' results when the analysis is unreadable, instead of replanning or failing", async () => {
    const actors = cast();
    actors.planner.push(planReply(plan(["a", []], ["b", ["a"]])));
    actors.step("a").push("A found 41");
    actors.step("b").push("B added 1: 42");
    actors.analyzer.push(...GARBAGE_AT_EVERY_LEVEL);
    const { events, result } = run(actors);
    const end = await result;
    expect(end.stopReason).toBe("stop");
    expect(end.errorMessage).toBeUndefined();
    expect(end.answer).toMatch(
      /^The analysis could not be read; this answer is assembled from the steps' results:/,
    );
    expect(end.answer).toContain("[a] (done) do a\nA found 41");
    expect(end.answer).toContain("[b] (done) do b\nB added 1: 42");
    expect(end.messages.at(-1)).toMatchObject({
      role: "assistant",
      content: [{ type: "text", text: end.answer }],
    });
    expect(ofType(events, "plan_analysis")).toMatchObject([{ round: 1, unreadable: true, achieved: false }]);
    expect(ofType(events, "answer_end")).toEqual([{ type: "answer_end", answer: end.answer }]);
    expect(ofType(events, "plan_replan")).toHaveLength(0);
    const purposes = ofType(events, "model_call_start").map((e) => e.purpose);
    expect(purposes.filter((p) => p === "plan")).toHaveLength(1);
    expect(purposes).not.toContain("synthesis");
  });

  it("clamps the analyzer's confidence to 0..1", async () => {
    const actors = cast();
    actors.planner.push(planReply(plan(["a", []])));
    actors.step("a").push("A");
    actors.analyzer.push(analysisReply(false, 7));
    actors.synth.push("done");
    const { events, result } = run(actors);
    await result;
    expect(ofType(events, "plan_analysis")[0]?.confidence).toBe(1);
    expect(ofType(events, "plan_replan")).toHaveLength(0); // confident: no replan
  });
});

describe("auto strategy", () => {
  const loopConfig = (actors: ReturnType<typeof cast>) => ({
    model: actors.model,
    streamFn: actors.streamFn,
    ...deterministic(),
  });

  it("falls back to the loop when the router's reply is unreadable at every level", async () => {
    const actors = cast();
    actors.router.push(...GARBAGE_AT_EVERY_LEVEL);
    actors.loop.push("loop answer");
    const events: AgentEvent[] = [];
    const result = await runWithStrategy(
      "auto",
      [userMessage("hi", 0)],
      { messages: [] },
      loopConfig(actors),
      (e) => void events.push(e),
    );
    expect(result.answer).toBe("loop answer");
    expect(ofType(events, "model_call_start").filter((e) => e.purpose === "route")).toHaveLength(5);
    expect(ofType(events, "plan_start")).toHaveLength(0);
    expect(ofType(events, "turn_start")).toHaveLength(1);
    // The router's calls sit inside the loop's run, and its usage counts in the run's total.
    expect(events[0]?.type).toBe("agent_start");
    const summed = ofType(events, "model_call_end").reduce((n, e) => n + e.usage.totalTokens, 0);
    expect(result.usage.totalTokens).toBe(summed);
    expect(ofType(events, "agent_end")[0]?.usage.totalTokens).toBe(summed);
  });

  it("falls back to the loop when the router's provider fails", async () => {
    const actors = cast();
    actors.router.push({ error: { kind: "auth", message: "bad key" } });
    actors.loop.push("loop answer");
    const result = await runWithStrategy(
      "auto",
      [userMessage("hi", 0)],
      { messages: [] },
      loopConfig(actors),
      () => {},
    );
    expect(result.answer).toBe("loop answer");
  });

  it("runs a plan when the router chooses one", async () => {
    const actors = cast();
    actors.router.push({
      content: [{ type: "toolCall", id: "r", name: "choose_strategy", arguments: { strategy: "plan" } }],
    });
    actors.planner.push(planReply(plan(["a", []])));
    actors.step("a").push("A");
    actors.analyzer.push(analysisReply(true, 1));
    actors.synth.push("planned answer");
    const events: AgentEvent[] = [];
    const result = await runWithStrategy(
      "auto",
      [userMessage("research", 0)],
      { messages: [] },
      loopConfig(actors),
      (e) => void events.push(e),
    );
    expect(result.answer).toBe("planned answer");
    expect(ofType(events, "plan_start")).toHaveLength(1);
  });
});
