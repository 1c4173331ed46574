// A tool call as a card the page can show, folded from `step` `iteration` frames: a "start" opens
// a running card, its "done" (matched by tool_call_id, so parallel calls of one tool stay apart)
// settles it. Used for the main turn's tools and for each plan step's own tools.

import { type Data, num, str } from "./data.js";

export type ToolStatus = "running" | "done" | "error";

export interface ToolCard {
  kind: "tool";
  id: string;
  name: string;
  args: Record<string, unknown>;
  status: ToolStatus;
  output?: string;
  seconds?: number;
  started?: number;
}

/** Folds one iteration frame into `cards` (in place: callers pass their own copy). */
export function updateTool(cards: ({ kind: string } | ToolCard)[], d: Data, now: number): void {
  const id = str(d.tool_call_id) || `${str(d.tool_name)}:${JSON.stringify(d.tool_args)}`;
  const index = cards.findIndex((card) => card.kind === "tool" && (card as ToolCard).id === id);
  const args = (d.tool_args ?? {}) as Record<string, unknown>;
  if (d.status === "start") {
    if (index < 0)
      cards.push({ kind: "tool", id, name: str(d.tool_name), args, status: "running", started: now });
    return;
  }
  const failed = d.error !== null && d.error !== undefined;
  const card: ToolCard = {
    kind: "tool",
    id,
    name: str(d.tool_name),
    args,
    status: failed ? "error" : "done",
    output: failed ? str(d.error) : str(d.observation),
    seconds: num(d.iter_elapsed),
  };
  if (index < 0) cards.push(card);
  else cards[index] = card;
}
