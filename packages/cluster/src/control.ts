// The control channel: steering, interrupts, permission answers and aborts travel from whichever
// node the client is connected to, through a `controls` row and a NOTIFY, to the worker that holds
// the session. A control for a session no worker runs at that moment reaches nobody (like one
// sent to an idle session on a single server).
import type { ServerSession } from "@tern/server";
import type { Pool } from "pg";
import { SCHEMA } from "./schema.js";

export const CONTROL_CHANNEL = "tern_control";

export type Control =
  | { kind: "interrupt"; text: string }
  | { kind: "steer"; text: string }
  | { kind: "abort" }
  | { kind: "permission"; requestId: string; allow: boolean; remember?: boolean; reason?: string };

export async function sendControl(pool: Pool, sessionId: string, control: Control): Promise<void> {
  const { rows } = await pool.query(
    `insert into ${SCHEMA}.controls (session_id, body) values ($1, $2) returning id`,
    [sessionId, JSON.stringify(control)],
  );
  await pool.query("select pg_notify($1, $2)", [CONTROL_CHANNEL, `${rows[0].id}:${sessionId}`]);
}

/** A NOTIFY payload: applies the control when this process runs its session. */
export async function receiveControl(
  pool: Pool,
  payload: string,
  live: ReadonlyMap<string, ServerSession>,
): Promise<void> {
  const colon = payload.indexOf(":");
  const session = live.get(payload.slice(colon + 1));
  if (colon < 0 || !session) return;
  const { rows } = await pool.query(`select body from ${SCHEMA}.controls where id = $1`, [
    payload.slice(0, colon),
  ]);
  const control = rows[0]?.body as Control | undefined;
  if (control) applyControl(session, control);
}

function applyControl(session: ServerSession, control: Control): void {
  switch (control.kind) {
    case "interrupt":
      if (session.isRunning) session.interrupt(control.text);
      return;
    case "steer":
      session.send(control.text, "immediate");
      return;
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
