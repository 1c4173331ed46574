// The control channel: steering, interrupts, permission answers and aborts travel from whichever
// node the client is connected to, through a `controls` row and a NOTIFY, to the worker that holds
// the session. Aborts and permission answers are for the moment they are sent: one for a session
// no worker runs then reaches nobody (like one sent to an idle session on a single server).
// Messages (steering, interrupts) are never dropped: they wait in `controls` until the worker
// running the session takes them (run-messages.ts), and one sent as the run ends is refused here
// so the node can submit it as the next run instead.
import type { ServerSession } from "@tern/server";
import type { Pool, PoolClient } from "pg";
import { SCHEMA } from "./schema.js";

export const CONTROL_CHANNEL = "tern_control";
/** The NOTIFY payload's head for "messages wait for this session" (a control's is its row id). */
const MESSAGES_WAITING = "messages";

export type RunMessage = { kind: "interrupt"; text: string } | { kind: "steer"; text: string };

export type Control =
  | RunMessage
  | { kind: "abort" }
  | { kind: "permission"; requestId: string; allow: boolean; remember?: boolean; reason?: string };

export function isRunMessage(control: Control): control is RunMessage {
  return control.kind === "interrupt" || control.kind === "steer";
}

/** A session this worker runs now: its served session, and how to hand it the messages waiting. */
export interface LiveRun {
  session: ServerSession;
  /** Takes the session's waiting messages and gives them to the run (run-messages.ts). */
  deliver(): void;
}

/**
 * Records a control and wakes the workers. A message is recorded only while the session has an
 * unfinished run, whose row it locks so the run cannot be marked done meanwhile (finishRun):
 * false means no run is left to take it.
 */
export async function sendControl(
  db: Pool | PoolClient,
  sessionId: string,
  control: Control,
): Promise<boolean> {
  const unfinished = isRunMessage(control)
    ? ` where exists (select 1 from ${SCHEMA}.runs where session_id = $1 and state <> 'done' for share)`
    : "";
  const { rows } = await db.query(
    `insert into ${SCHEMA}.controls (session_id, body) select $1, $2${unfinished} returning id`,
    [sessionId, JSON.stringify(control)],
  );
  if (rows.length === 0) return false;
  // A message is taken with whatever else waits for the session, so its row id need not travel.
  const about = isRunMessage(control) ? MESSAGES_WAITING : rows[0].id;
  await db.query("select pg_notify($1, $2)", [CONTROL_CHANNEL, `${about}:${sessionId}`]);
  return true;
}

/** A NOTIFY payload: applies the control when this process runs its session. */
export async function receiveControl(
  pool: Pool,
  payload: string,
  live: ReadonlyMap<string, LiveRun>,
): Promise<void> {
  const colon = payload.indexOf(":");
  const run = live.get(payload.slice(colon + 1));
  if (colon < 0 || !run) return;
  const about = payload.slice(0, colon);
  if (about === MESSAGES_WAITING) return run.deliver();
  const { rows } = await pool.query(`select body from ${SCHEMA}.controls where id = $1`, [about]);
  const control = rows[0]?.body as Control | undefined;
  if (control && !isRunMessage(control)) applyControl(run.session, control);
}

function applyControl(session: ServerSession, control: Exclude<Control, RunMessage>): void {
  switch (control.kind) {
    case "abort":
      session.abort();
      return;
    case "permission":
      session.answerPermission(control.requestId, {
        allow: control.allow,
        ...(control.remember ? { remember: true } : {}),
        ...(control.reason ? { reason: control.reason } : {}),
      });
      return;
  }
}
