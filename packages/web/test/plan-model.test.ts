// The page's plan model without a browser: dependency levels (a diamond, and input the server
// should never send: unknown dependencies, a cycle), and plan frames folded once by id, with
// frames about steps no plan has ignored instead of breaking the turn.
import { describe, expect, it } from "vitest";
import { levels } from "../src/plan.js";
import { applyFrame, newRun, type Turn } from "../src/turns.js";

const fold = (turn: Turn, frames: [string, string, Record<string, unknown>][]) =>
  frames.reduce((t, [id, event, data]) => applyFrame(t, { id, event, data }, 0), turn);

describe("the page's plan model", () => {
  it("puts a diamond's steps in three levels", () => {
    const depth = levels([
      { id: "a", dependencies: [] },
      { id: "b", dependencies: ["a"] },
      { id: "c", dependencies: ["a"] },
      { id: "d", dependencies: ["b", "c"] },
    ]);
    expect(Object.fromEntries(depth)).toEqual({ a: 0, b: 1, c: 1, d: 2 });
  });

  it("survives unknown dependencies and a cycle", () => {
    const depth = levels([
      { id: "x", dependencies: ["nowhere"] },
      { id: "p", dependencies: ["q"] },
      { id: "q", dependencies: ["p"] },
    ]);
    expect(depth.get("x")).toBe(0);
    expect(depth.has("p") && depth.has("q")).toBe(true);
  });

  it("folds each frame once and ignores frames about unknown steps", () => {
    const frames: [string, string, Record<string, unknown>][] = [
      [
        "1",
        "phase",
        {
          phase: "executing",
          round: 1,
          steps: [{ id: "a", task: "A", dependencies: [] }, { task: "no id" }],
        },
      ],
      ["2", "step_progress", { round: 1, step_id: "a", status: "running" }],
      [
        "3",
        "step",
        { type: "iteration", status: "start", step_id: "a", tool_call_id: "t1", tool_name: "ls" },
      ],
      ["4", "step_progress", { round: 1, step_id: "ghost", status: "done" }],
      [
        "5",
        "step_progress",
        { round: 1, step_id: "a", status: "done", duration_ms: 1200, usage: { total_tokens: 9 } },
      ],
    ];
    const once = fold(newRun("r"), frames);
    const twice = fold(once, frames);
    expect(twice).toBe(once);
    expect(once.items).toHaveLength(1);
    const plan = once.items[0];
    expect(plan?.kind === "plan" && plan.steps).toEqual([
      {
        id: "a",
        task: "A",
        dependencies: [],
        level: 0,
        status: "done",
        durationMs: 1200,
        tokens: 9,
        tools: [expect.objectContaining({ id: "t1", name: "ls", status: "running" })],
      },
    ]);
  });
});
