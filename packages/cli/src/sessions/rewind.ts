// Rewinding a session to before one of its turns. A turn is a user message on the session's
// current path; its checkpoints (in $TERN_HOME/checkpoints/<session>) carry its entry id.
// Code: the files the turns from there on changed are put back (refused, naming them, when one
// changed outside tern since, unless forced). Conversation: the session's leaf moves to just
// before that turn's message and a `rewind` custom entry records it, so the old turns stay in the
// append-only tree as an abandoned branch and the next prompt continues from there.

import type { Session } from "@tern/session";
import { applyRewind, CheckpointStore, planRewind, type RewindPlan } from "@tern/tools";
import { injectedKinds } from "./transcript.js";

export interface Turn {
  /** 1-based, along the current path. */
  number: number;
  entryId: string;
  /** The user's prompt text. */
  text: string;
}

export type RewindWhat = "code" | "conversation" | "both";

export const REWIND_ENTRY_TYPE = "rewind";

/** The person's prompts on the current path (messages the agent's policies injected are not turns). */
export function turnsOf(session: Session): Turn[] {
  const turns: Turn[] = [];
  const injected = injectedKinds(session);
  for (const entry of session.pathTo()) {
    if (entry.type !== "message" || entry.message.role !== "user" || injected.has(entry.message)) continue;
    const content = entry.message.content;
    const text =
      typeof content === "string"
        ? content
        : content.map((part) => (part.type === "text" ? part.text : "[image]")).join(" ");
    turns.push({ number: turns.length + 1, entryId: entry.id, text });
  }
  return turns;
}

/** The turn running now: the newest user message on the path ("" before the first). */
export function currentTurnId(session: Session): string {
  return turnsOf(session).at(-1)?.entryId ?? "";
}

export function checkpointStore(home: string, session: Session): CheckpointStore {
  return CheckpointStore.forSession(home, session.id);
}

export interface RewindOutcome {
  turn: Turn;
  plan?: RewindPlan;
  /** Files written or deleted. */
  restored: string[];
  /** Files that could not be put back, with why. */
  failed: { path: string; error: string }[];
  /** Set when the code part refused (conflicts and no force): nothing was changed. */
  refused: boolean;
  conversation: boolean;
}

/** Rewinds `session` (open for writing) to before turn `to`. */
export async function rewindSession(
  session: Session,
  home: string,
  options: { to: Turn; what: RewindWhat; force: boolean },
): Promise<RewindOutcome> {
  const { to, what, force } = options;
  const outcome: RewindOutcome = { turn: to, restored: [], failed: [], refused: false, conversation: false };
  if (what !== "conversation") {
    const store = checkpointStore(home, session);
    const undo = turnsOf(session)
      .filter((turn) => turn.number >= to.number)
      .map((turn) => turn.entryId);
    const plan = await planRewind(store, undo);
    outcome.plan = plan;
    if (plan.conflicts.length > 0 && !force) {
      outcome.refused = true;
      return outcome;
    }
    const applied = await applyRewind(store, plan, force);
    outcome.restored = applied.restored;
    outcome.failed = applied.failed;
  }
  if (what !== "code") {
    const message = session.getEntry(to.entryId)!;
    const from = session.leafId;
    session.branch(message.parentId);
    session.appendCustom(REWIND_ENTRY_TYPE, { toTurn: to.number, turnEntryId: to.entryId, fromLeafId: from });
    await session.flush();
    outcome.conversation = true;
  }
  return outcome;
}
