// A serve node's view of every session's events: one LISTEN for the whole node, and for each SSE
// client a cursor (the last seq it got) read forward from `events` when NOTIFY says a session
// moved. The table, not the notification, carries the events: a NOTIFY lost while the database
// restarted costs nothing, since the next read (or the catch-up after reconnecting) starts from
// the cursor. Each client gets each seq once, in order.
import type { Pool } from "pg";
import { EVENTS_CHANNEL } from "./event-mirror.js";
import { Listener } from "./listener.js";
import { SCHEMA } from "./schema.js";

export interface FeedEvent {
  seq: number;
  event: { type: string } & Record<string, unknown>;
}

/** Events per read: a long backlog arrives in pages. */
const PAGE = 500;

class Cursor {
  private reading: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly pool: Pool,
    readonly sessionId: string,
    private after: number,
    private readonly deliver: (events: FeedEvent[]) => void,
  ) {}

  poke(): void {
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = this.read().finally(() => {
      this.reading = undefined;
      if (this.again) {
        this.again = false;
        this.poke();
      }
    });
  }

  private async read(): Promise<void> {
    for (;;) {
      let rows: { seq: number; event: FeedEvent["event"] }[];
      try {
        ({ rows } = await this.pool.query(
          `select seq, event from ${SCHEMA}.events where session_id = $1 and seq > $2 order by seq limit $3`,
          [this.sessionId, this.after, PAGE],
        ));
      } catch {
        return; // the database is away: the reconnect's catch-up pokes every cursor again
      }
      if (rows.length === 0) return;
      this.after = rows.at(-1)!.seq;
      this.deliver(rows.map((row) => ({ seq: row.seq, event: row.event })));
      if (rows.length < PAGE) return;
    }
  }
}

export class EventFeed {
  private readonly cursors = new Set<Cursor>();
  private readonly listener: Listener;

  constructor(
    private readonly pool: Pool,
    connectionString: string,
  ) {
    this.listener = new Listener(
      connectionString,
      [EVENTS_CHANNEL],
      (_channel, sessionId) => {
        for (const cursor of this.cursors) if (cursor.sessionId === sessionId) cursor.poke();
      },
      () => {
        for (const cursor of this.cursors) cursor.poke();
      },
    );
  }

  start(): Promise<void> {
    return this.listener.start();
  }

  /** Delivers the session's events after `after`, then each new one; returns the unsubscribe. */
  subscribe(sessionId: string, after: number, deliver: (events: FeedEvent[]) => void): () => void {
    const cursor = new Cursor(this.pool, sessionId, after, deliver);
    this.cursors.add(cursor);
    cursor.poke();
    return () => this.cursors.delete(cursor);
  }

  close(): Promise<void> {
    this.cursors.clear();
    return this.listener.close();
  }
}
