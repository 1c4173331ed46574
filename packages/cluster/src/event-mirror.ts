// Copies a session's persisted events into `events` (keyed by session and seq, so a copy made
// twice is kept once) and wakes the serve nodes with NOTIFY. Only durable events are copied: each
// copy flushes the session first, because a store that commits at flush (PostgreSQL) would
// otherwise publish events a killed worker never committed, which the next worker then numbers
// again with other content. The session log stays the source:
// a worker killed before its copy landed leaves the gap to the next worker, which mirrors from
// the highest seq the table has. While the database is away the copy waits and catches up.
import type { Session } from "@tern/session";
import type { Pool } from "pg";
import { RETRY_MS, retrying } from "./db.js";
import { EVENTS_CHANNEL, SCHEMA } from "./schema.js";

/** Rows per INSERT: a backfill after a takeover goes in a few statements, not one per event. */
const BATCH = 200;

export class EventMirror {
  private mirrored = -1;
  private pumping: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(
    private readonly pool: Pool,
    private readonly session: Session,
  ) {}

  /** Something new was persisted: copy it soon. */
  kick(): void {
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = this.pump().finally(() => {
      this.pumping = undefined;
    });
  }

  /** Resolves when everything persisted so far is in the table. */
  async sync(): Promise<void> {
    this.kick();
    while (this.pumping) await this.pumping;
  }

  stop(): void {
    this.stopped = true;
  }

  private async pump(): Promise<void> {
    do {
      this.again = false;
      await retrying(
        () => this.copy(),
        () => this.stopped,
      ).catch(async () => {
        // A statement error (not the connection): try again later rather than lose events.
        if (!this.stopped) await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
        this.again = !this.stopped;
      });
    } while (this.again && !this.stopped);
  }

  private async copy(): Promise<void> {
    const id = this.session.id;
    await this.session.flush();
    if (this.mirrored < 0) {
      const { rows } = await this.pool.query(
        `select coalesce(max(seq), 0) as seq from ${SCHEMA}.events where session_id = $1`,
        [id],
      );
      this.mirrored = Number(rows[0].seq);
    }
    const pending = this.session.eventsAfter(this.mirrored);
    for (let i = 0; i < pending.length; i += BATCH) {
      const batch = pending.slice(i, i + BATCH);
      await this.pool.query(
        `insert into ${SCHEMA}.events (session_id, seq, event)
         select $1, seq, event from unnest($2::int[], $3::jsonb[]) as t(seq, event)
         on conflict do nothing`,
        [id, batch.map((entry) => entry.seq), batch.map((entry) => JSON.stringify(entry.event))],
      );
      this.mirrored = batch.at(-1)!.seq;
    }
    if (pending.length > 0) await this.pool.query("select pg_notify($1, $2)", [EVENTS_CHANNEL, id]);
  }
}
