// Messages for a run on this worker: the steering and interrupts a node recorded in `controls`
// (control.ts). While the run goes on they reach it at its next turn boundary; one that comes when
// no run is going is kept, and the worker follows the run up with it. Those that come as the run
// ends are taken by the transaction that would mark it done, which then leaves it running for
// them (finishRun). Each message is taken once (`taken_at`), by the worker holding the session.
import type { ServerSession } from "@tern/server";
import type { Pool, PoolClient } from "pg";
import type { LiveRun, RunMessage } from "./control.js";
import { SCHEMA } from "./schema.js";

/** The served session of a run on this worker, with the messages it has not been given yet. */
export class ServedRun implements LiveRun {
  private kept: RunMessage[] = [];
  private taking: Promise<void> = Promise.resolve();

  constructor(
    readonly session: ServerSession,
    private readonly pool: Pool,
    private readonly log: (line: string) => void,
  ) {}

  deliver(): void {
    this.taking = this.taking
      .then(async () => {
        for (const message of await takeMessages(this.pool, this.session.id)) this.give(message);
      })
      .catch((error) => this.log(`session ${this.session.id}: messages not taken: ${String(error)}`));
  }

  /** Gives messages to the run going on, or keeps them for the next one. */
  give(message: RunMessage): void {
    if (!this.session.isRunning) this.kept.push(message);
    else if (message.kind === "interrupt") this.session.interrupt(message.text);
    else this.session.send(message.text, "immediate");
  }

  /** Runs the kept messages (the first starts a run, the rest follow it up) until none are left. */
  async settle(): Promise<void> {
    for (;;) {
      await this.session.idle();
      await this.taking;
      const kept = this.kept.splice(0);
      if (kept.length === 0) return;
      for (const message of kept) this.session.send(message.text, "enqueue");
    }
  }
}

/**
 * Marks the run done, unless messages wait for its session: then they are taken and returned,
 * and the run stays running for them. Locking the run's row first waits for a node still
 * recording a message (sendControl's share lock); one recorded after this commits finds the run
 * done and becomes the session's next run instead.
 */
export async function finishRun(pool: Pool, runId: string, sessionId: string): Promise<RunMessage[]> {
  const client = await pool.connect();
  try {
    await client.query("begin");
    await client.query(`select 1 from ${SCHEMA}.runs where run_id = $1 for update`, [runId]);
    const waiting = await takeMessages(client, sessionId);
    if (waiting.length === 0)
      await client.query(
        `update ${SCHEMA}.runs set state = 'done', completions = completions + 1, completed_at = now(),
                lease_owner = null, lease_until = null
          where run_id = $1 and state <> 'done'`,
        [runId],
      );
    await client.query("commit");
    return waiting;
  } catch (error) {
    await client.query("rollback").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

async function takeMessages(db: Pool | PoolClient, sessionId: string): Promise<RunMessage[]> {
  const { rows } = await db.query(
    `update ${SCHEMA}.controls set taken_at = now()
      where session_id = $1 and taken_at is null and body->>'kind' in ('steer', 'interrupt')
      returning id, body`,
    [sessionId],
  );
  return (rows as { id: string; body: RunMessage }[])
    .sort((a, b) => Number(a.id) - Number(b.id))
    .map((row) => row.body);
}
