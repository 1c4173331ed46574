// What the page shows, as data: a session is a list of turns, each a list of items (the user's
// message, reasoning, tool cards, notes, the answer, the footer). Turns come from two places:
// stored messages (history) and a run's SSE frames (live or replayed). applyFrame folds one frame
// into a turn and skips any frame at or before the last one it saw, so a reconnection that
// overlaps never shows anything twice. A plan run's rounds, steps and their tool calls are folded
// by plan.ts into plan items.

import { type Data, num, str } from "./data.js";
import { analysisNote, foldStepFrame, type PlanItem, planOf, replanNote } from "./plan.js";
import { placeTodoList, type TodoListItem, todoEntries } from "./todos.js";
import { type ToolCard, updateTool } from "./tool-cards.js";

export type Item =
  | { kind: "user"; text: string }
  | { kind: "reasoning"; text: string }
  /** The model's own words that are not the answer (before a tool call, or an answer it was asked to check). */
  | { kind: "text"; text: string }
  | ToolCard
  | { kind: "note"; label: string; text: string }
  | { kind: "compact"; before: number; after: number }
  | { kind: "answer"; text: string; done: boolean }
  /** The model's text as it streams, before anyone knows whether it is the answer. */
  | { kind: "draft"; text: string }
  | {
      kind: "footer";
      /** Loop turns, or in a plan run the steps run. */
      iterations: number;
      plan: boolean;
      tokens: number;
      cost: number;
      elapsed: number;
      stop: string;
    }
  | { kind: "error"; text: string }
  /** One round of a plan run: its steps as a graph (plan.ts). */
  | PlanItem
  /** The agent's todo list, as its last todo_write left it. */
  | TodoListItem;

export interface Question {
  id: string;
  tool: string;
  description: string;
  args: unknown;
  options: { id: string; label: string }[];
}

export interface Turn {
  key: string;
  items: Item[];
  /** The last frame folded in (runs only). */
  lastId?: string;
  questions: Question[];
  /** What each permission question asked ("bash: node --test"), kept for its record once answered. */
  asked?: Record<string, string>;
  done: boolean;
}

const NOTE_LABELS: Record<string, string> = {
  steering: "Your message (steering)",
  follow_up: "Your message (follow-up)",
  interrupt: "Your message (interrupt)",
  reflection: "Reflection",
  cycle_warning: "Cycle warning",
  completion_check: "Completion check",
  nudge: "Autopilot nudge",
};

/**
 * The tags the agent's policies open their injected user messages with: stored messages carry no
 * kind, so this is how history tells them from what the user typed (agent/src/policies/*).
 */
const INJECTED_TAGS: [tag: string, kind: string][] = [
  ["[COMPLETION CHECK]", "completion_check"],
  ["[SELF-REFLECTION]", "reflection"],
  ["[CYCLE WARNING]", "cycle_warning"],
  ["[AUTOPILOT]", "nudge"],
  ["[USER INTERRUPT]", "interrupt"],
];

export function noteLabel(kind: string): string {
  return NOTE_LABELS[kind] ?? kind.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase());
}

/** An injected message as the page shows it, live (`inject` frames) and from history alike. */
function injectedNote(kind: string, text: string): Item {
  return { kind: "note", label: noteLabel(kind), text };
}

/** The kind of an injected message found among stored user messages, if it is one. */
function injectedKind(text: string): string | undefined {
  return INJECTED_TAGS.find(([tag]) => text.startsWith(tag))?.[1];
}

/** A permission question in words: "bash: node --test" (the tool once, then what it does). */
function permissionText(tool: string, description: string): string {
  if (!tool) return description;
  return description === tool || description.startsWith(`${tool}:`) ? description : `${tool}: ${description}`;
}

/** "12.3" > "12" > "11.9": frame ids are `<entry>` or `<entry>.<n>`. */
export function frameAfter(id: string, last: string | undefined): boolean {
  if (!last || !id) return true;
  const [a, ai = "0"] = id.split(".");
  const [b, bi = "0"] = last.split(".");
  return Number(a) > Number(b) || (Number(a) === Number(b) && Number(ai) > Number(bi));
}

export function newRun(key: string, userText?: string): Turn {
  return { key, items: userText ? [{ kind: "user", text: userText }] : [], questions: [], done: false };
}

/** The turn with one more frame folded in (the same object when the frame was already seen). */
export function applyFrame(
  turn: Turn,
  frame: { id: string; event: string; data: Data },
  now = Date.now(),
): Turn {
  if (!frameAfter(frame.id, turn.lastId)) return turn;
  const items = [...turn.items];
  let questions = turn.questions;
  let asked = turn.asked;
  let done = turn.done;
  const d = frame.data;
  switch (frame.event) {
    case "text": {
      const draft = items.at(-1);
      if (draft?.kind === "draft") items[items.length - 1] = { ...draft, text: draft.text + str(d.delta) };
      else items.push({ kind: "draft", text: str(d.delta) });
      break;
    }
    case "step":
      if (d.type === "thinking" && d.status === "done") settleTurnText(items, d);
      // A sub-agent's tool calls stay collapsed under its `task` card (its summary comes as a note).
      if (d.parent_tool_call_id) break;
      // A plan step's tool call goes under its step (or, if no plan has that step, the turn).
      if (d.type === "iteration" && !(d.step_id && foldStepFrame(items, "step", d, now)))
        updateTool(items, d, now);
      break;
    case "todo":
      placeTodoList(items, todoEntries(d.items));
      break;
    case "subagent":
      if (d.status !== "running")
        items.push({
          kind: "note",
          label: `Sub-agent ${str(d.agent)}`,
          text: `${str(d.status)} · ${num(d.turns)} turns${d.error ? ` · ${str(d.error)}` : ""}`,
        });
      break;
    case "phase":
      if (d.phase === "executing") items.push(planOf(d));
      else if (d.phase === "analyzing") items.push({ kind: "note", ...analysisNote(d) });
      else if (d.phase === "replanning") items.push({ kind: "note", ...replanNote(d) });
      break;
    case "step_progress":
      foldStepFrame(items, "step_progress", d, now);
      break;
    case "answer":
      // The answer is what streamed: its draft goes.
      if (items.at(-1)?.kind === "draft") items.pop();
      if (d.status === "start") {
        // Each start restarts the answer: after a failed synthesis what streamed before is void.
        const open = items.at(-1);
        if (open?.kind === "answer" && !open.done) items.pop();
        items.push({ kind: "answer", text: "", done: false });
      } else {
        const index = lastIndex(items, "answer");
        const answer = items[index];
        if (answer?.kind === "answer")
          items[index] =
            d.status === "delta"
              ? { ...answer, text: answer.text + str(d.content) }
              : { ...answer, done: true };
        // The last words the model said are the answer: shown once, as the answer.
        const said = items[index - 1];
        if (
          d.status === "done" &&
          said?.kind === "text" &&
          answer?.kind === "answer" &&
          said.text === answer.text.trim()
        )
          items.splice(index - 1, 1);
      }
      break;
    case "compact":
      items.push({ kind: "compact", before: num(d.original_messages), after: num(d.kept_messages) });
      break;
    case "inject":
      items.push(injectedNote(str(d.kind), str(d.content)));
      break;
    case "permission":
      if (d.status === "asked") {
        const question = questionOf(d);
        questions = [...questions.filter((q) => q.id !== d.id), question];
        asked = { ...asked, [question.id]: permissionText(question.tool, question.description) };
      } else {
        questions = questions.filter((q) => q.id !== d.id);
        // The record names only the request: what it asked is kept from the question.
        const what = asked?.[str(d.id)] ?? str(d.id);
        items.push({
          kind: "note",
          label: d.status === "allowed" ? "Permission allowed" : "Permission denied",
          text: d.reason ? `${what} (${str(d.reason)})` : what,
        });
      }
      break;
    case "done": {
      const usage = (d.usage ?? {}) as Data;
      if (d.error) items.push({ kind: "error", text: str(d.error) });
      items.push({
        kind: "footer",
        iterations: num(d.iterations),
        plan: items.some((item) => item.kind === "plan"),
        tokens: num(usage.total_tokens),
        cost: num(usage.cost),
        elapsed: num(d.elapsed),
        stop: str(d.stop_reason),
      });
      questions = [];
      done = true;
      break;
    }
  }
  return {
    ...turn,
    items,
    questions,
    done,
    ...(asked ? { asked } : {}),
    ...(frame.id ? { lastId: frame.id } : {}),
  };
}

/**
 * A model turn's end: its streamed draft gives way to what the turn was, in the order of the
 * stored message (historyTurns): its reasoning (collapsed), then its own words as text (before a
 * tool call, or an answer a policy sent back; the answer itself replaces them when it comes).
 */
function settleTurnText(items: Item[], d: Data): void {
  if (items.at(-1)?.kind === "draft") items.pop();
  const words = str(d.text).trim();
  let reasoning = str(d.reasoning).trim();
  // The server's reasoning repeats the words said before a tool call; they are shown once, as text.
  if (words && reasoning.endsWith(words)) reasoning = reasoning.slice(0, -words.length).trim();
  if (reasoning) items.push({ kind: "reasoning", text: reasoning });
  if (words) items.push({ kind: "text", text: words });
}

export function questionOf(d: Data): Question {
  return {
    id: str(d.id),
    tool: str(d.tool),
    description: str(d.description),
    args: d.args,
    options: Array.isArray(d.options) ? (d.options as Question["options"]) : [],
  };
}

function lastIndex(items: Item[], kind: Item["kind"]): number {
  for (let i = items.length - 1; i >= 0; i--) if (items[i]!.kind === kind) return i;
  return -1;
}

// ------------------------------------------------------------------ history (stored messages)

interface Part {
  type: string;
  text?: string;
  thinking?: string;
  id?: string;
  name?: string;
  arguments?: Record<string, unknown>;
}
interface Message {
  role: string;
  content?: string | Part[];
  toolCallId?: string;
  isError?: boolean;
}

export function messageText(content: Message["content"]): string {
  if (typeof content === "string") return content;
  return (content ?? [])
    .filter((part) => part.type === "text")
    .map((part) => part.text ?? "")
    .join("");
}

/** Stored messages as finished turns: a turn starts at each message the user typed. */
export function historyTurns(messages: readonly Message[]): Turn[] {
  const turns: Turn[] = [];
  let current: Turn | undefined;
  const cards = new Map<string, ToolCard>();
  for (const [index, message] of messages.entries()) {
    const text = message.role === "user" ? messageText(message.content) : "";
    const injected = message.role === "user" ? injectedKind(text) : undefined;
    if ((message.role === "user" && !injected) || !current) {
      if (current) settleAnswer(current.items);
      current = { key: `h${index}`, items: [], questions: [], done: true };
      turns.push(current);
      if (message.role === "user" && !injected) {
        current.items.push({ kind: "user", text });
        continue;
      }
    }
    if (injected) current.items.push(injectedNote(injected, text));
    if (message.role === "assistant" && Array.isArray(message.content)) {
      for (const part of message.content) {
        if (part.type === "thinking" && part.thinking)
          current.items.push({ kind: "reasoning", text: part.thinking });
        if (part.type === "text" && part.text?.trim())
          current.items.push({ kind: "text", text: part.text.trim() });
        if (part.type === "toolCall") {
          const card: ToolCard = {
            kind: "tool",
            id: part.id ?? String(index),
            name: part.name ?? "",
            args: part.arguments ?? {},
            status: "done",
          };
          cards.set(card.id, card);
          current.items.push(card);
          if (part.name === "todo_write") placeTodoList(current.items, todoEntries(part.arguments?.todos));
        }
      }
    }
    if (message.role === "toolResult" && message.toolCallId) {
      const card = cards.get(message.toolCallId);
      if (card) {
        card.output = messageText(message.content);
        card.status = message.isError ? "error" : "done";
      }
    }
  }
  if (current) settleAnswer(current.items);
  return turns;
}

/** A finished turn's answer is the model's last words, when nothing came after them. */
function settleAnswer(items: Item[]): void {
  const last = items.at(-1);
  if (last?.kind === "text") items[items.length - 1] = { kind: "answer", text: last.text, done: true };
}
