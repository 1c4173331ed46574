// `/rewind` in chat: without an argument it lists the turns; `/rewind N [code|conversation|both]
// [force]` rewinds to before turn N, like `tern sessions rewind`. After a conversation rewind the
// agent continues from the rewound context and the turn's prompt is put back in the input line.

import { oneLine } from "../render/format.js";
import { rewindLines } from "../render/rewind-lines.js";
import { type RewindWhat, rewindSession, turnsOf } from "../sessions/rewind.js";
import type { SlashContext } from "./slash.js";

const WHATS: readonly RewindWhat[] = ["code", "conversation", "both"];
const USAGE = "usage: /rewind [N] [code|conversation|both] [force]";

export async function rewindCommand(arg: string, ctx: SlashContext): Promise<void> {
  const { runtime, style, print } = ctx;
  const session = runtime.session;
  const turns = turnsOf(session);
  if (turns.length === 0) return print(style.dim("no turns to rewind yet"));
  const words = arg.split(/\s+/).filter(Boolean);
  if (words.length === 0) {
    for (const turn of turns) print(`  ${String(turn.number).padStart(3)}  ${oneLine(turn.text, 90)}`);
    return print(style.dim(`/rewind N goes back to before turn N (code and conversation; ${USAGE})`));
  }
  const number = Number(words[0]);
  const to = turns.find((turn) => turn.number === number);
  const what = words.slice(1).find((word) => (WHATS as readonly string[]).includes(word)) as
    | RewindWhat
    | undefined;
  const unknown = words
    .slice(1)
    .filter((word) => word !== "force" && !(WHATS as readonly string[]).includes(word));
  if (!to || unknown.length > 0)
    return print(style.yellow(`${USAGE}; N is a turn from 1 to ${turns.length} (/rewind lists them)`));
  const outcome = await rewindSession(session, ctx.home, {
    to,
    what: what ?? "both",
    force: words.includes("force"),
  });
  for (const line of rewindLines(outcome, runtime.cwd, style)) print(line);
  if (outcome.conversation) {
    runtime.agent.replaceMessages(session.buildContext().messages);
    ctx.setInput(to.text);
  }
}
