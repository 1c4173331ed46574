// The page's one mapping for a run seen live and the same run read back from stored messages:
// every injected message (each policy's tag), the model's words and the final answer come out as
// the same items both ways.
import { expect, it } from "vitest";
import { applyFrame, historyTurns, type Item, newRun, type Turn } from "../src/turns.js";

const fold = (turn: Turn, frames: [string, Record<string, unknown>][]) =>
  frames.reduce((t, [event, data], i) => applyFrame(t, { id: String(i + 1), event, data }, 0), turn);

const INJECTED: [kind: string, text: string][] = [
  ["completion_check", "[COMPLETION CHECK] Before you finish, check your answer:"],
  ["reflection", "[SELF-REFLECTION] You have made 5 tool calls."],
  ["cycle_warning", "[CYCLE WARNING] You are repeating the same tool call."],
  ["nudge", "[AUTOPILOT] You have not marked the task complete."],
  ["interrupt", "[USER INTERRUPT] The user sent a message while you were working:\nhurry"],
];

const assistant = (text: string) => ({ role: "assistant", content: [{ type: "text", text }] });
const shown = (items: Item[]) => items.filter((item) => item.kind !== "footer");

it.each(INJECTED)("shows a %s the same live and from history", (kind, text) => {
  const live = fold(newRun("r", "do it"), [
    ["step", { type: "thinking", status: "done", reasoning: "", text: "A first answer." }],
    ["inject", { type: "inject", kind, content: text }],
    ["step", { type: "thinking", status: "done", reasoning: "", text: "The final answer." }],
    ["answer", { status: "start" }],
    ["answer", { status: "delta", content: "The final answer." }],
    ["answer", { status: "done" }],
    ["done", {}],
  ]);
  const [stored] = historyTurns([
    { role: "user", content: "do it" },
    assistant("A first answer."),
    { role: "user", content: text },
    assistant("The final answer."),
  ]);
  expect(shown(stored!.items)).toEqual(shown(live.items));
  expect(shown(live.items).map((item) => item.kind)).toEqual(["user", "text", "note", "answer"]);
});

it("keeps a user's message that merely mentions a tag as theirs", () => {
  const turns = historyTurns([{ role: "user", content: "what does [COMPLETION CHECK] mean?" }]);
  expect(turns[0]!.items).toEqual([{ kind: "user", text: "what does [COMPLETION CHECK] mean?" }]);
});

it("names a permission by tool and command once, even after the page dropped the answered question", () => {
  const asked = fold(newRun("r"), [
    ["permission", { status: "asked", id: "p1", tool: "bash", description: "bash: node --test", args: {} }],
  ]);
  // What the page does when the user answers: the question goes before the server's record comes.
  const answered = { ...asked, questions: [] };
  const turn = applyFrame(
    answered,
    { id: "2", event: "permission", data: { status: "allowed", id: "p1" } },
    0,
  );
  expect(turn.items.at(-1)).toEqual({ kind: "note", label: "Permission allowed", text: "bash: node --test" });
});

it("shows a thinking model's turn the same live and from history: its reasoning, then its answer once", () => {
  const live = fold(newRun("r", "do it"), [
    ["step", { type: "thinking", status: "done", reasoning: "Plan it.", text: "Done." }],
    ["answer", { status: "start" }],
    ["answer", { status: "delta", content: "Done." }],
    ["answer", { status: "done" }],
    ["done", {}],
  ]);
  const [stored] = historyTurns([
    { role: "user", content: "do it" },
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "Plan it." },
        { type: "text", text: "Done." },
      ],
    },
  ]);
  expect(shown(stored!.items)).toEqual(shown(live.items));
  expect(shown(live.items).map((item) => item.kind)).toEqual(["user", "reasoning", "answer"]);
});
