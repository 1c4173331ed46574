// The page's answer model without a browser: a second answer start (a failed synthesis falls back
// to the loop's own reply) replaces the unfinished answer instead of leaving its voided text.
import { expect, it } from "vitest";
import { applyFrame, newRun, type Turn } from "../src/turns.js";

const fold = (turn: Turn, frames: [string, string, Record<string, unknown>][]) =>
  frames.reduce((t, [id, event, data]) => applyFrame(t, { id, event, data }, 0), turn);

it("restarts the answer on a second start, so only the fallback is shown", () => {
  const turn = fold(newRun("r"), [
    ["1", "answer", { status: "start" }],
    ["2", "answer", { status: "delta", content: "The synthesis began and then bro" }],
    ["3", "answer", { status: "start" }],
    ["4", "answer", { status: "delta", content: "The loop's own reply." }],
    ["5", "answer", { status: "done" }],
  ]);
  const answers = turn.items.filter((item) => item.kind === "answer");
  expect(answers).toEqual([{ kind: "answer", text: "The loop's own reply.", done: true }]);
});

it("keeps a finished answer when a later run's answer starts", () => {
  const turn = fold(newRun("r"), [
    ["1", "answer", { status: "start" }],
    ["2", "answer", { status: "delta", content: "first" }],
    ["3", "answer", { status: "done" }],
    ["4", "answer", { status: "start" }],
    ["5", "answer", { status: "delta", content: "second" }],
  ]);
  expect(
    turn.items.filter((item) => item.kind === "answer").map((item) => item.kind === "answer" && item.text),
  ).toEqual(["first", "second"]);
});
