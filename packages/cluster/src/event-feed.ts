// A serve node's view of every session's events: one LISTEN for the whole node, and for each
// session open on the node a cursor (the last seq it got) read forward from `events` when NOTIFY
// says the session moved (an event was mirrored, or one of its runs was submitted or ended). The
// tables, not the notification, carry the news: a NOTIFY lost while the database restarted costs
// nothing, since the next read (or the catch-up after reconnecting) starts from the cursor. Each
// subscriber gets each seq once, in order, with the session's run counts read just before them.
import type { Pool } from "pg";
import { Listener } from "./listener.js";
import { EVENTS_CHANNEL, SCHEMA } from "./schema.js";

export interface FeedEvent {
  seq: number;
  event: { type: string } & Record<string, unknown>;
}

/** One read of a session: the new events, and its runs as they stood just before. */
export interface FeedUpdate {
  events: FeedEvent[];
  /** Runs of the session submitted and not done, and submitted at all. */
  runs: { pending: number; total: number };
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
    private readonly deliver: (update: FeedUpdate) => void,
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
    // Runs first: a run is marked done only after its events are in the table, so events read
    // after a "none pending" hold all of that run's.
    let runs: FeedUpdate["runs"];
    const events: FeedEvent[] = [];
    try {
      const { rows } = await this.pool.query(
        `select count(*) filter (where state <> 'done')::int as pending, count(*)::int as total
           from ${SCHEMA}.runs where session_id = $1`,
        [this.sessionId],
      );
      runs = { pending: rows[0].pending, total: rows[0].total };
      for (;;) {
        const { rows: page } = await this.pool.query(
          `select seq, event from ${SCHEMA}.events where session_id = $1 and seq > $2 order by seq limit $3`,
          [this.sessionId, events.at(-1)?.seq ?? this.after, PAGE],
        );
        events.push(
          ...page.map((row) => ({ seq: row.seq as number, event: row.event as FeedEvent["event"] })),
        );
        if (page.length < PAGE) break;
      }
    } catch {
      return; // the database is away: the reconnect's catch-up pokes every cursor again
    }
    if (events.length > 0) this.after = events.at(-1)!.seq;
    this.deliver({ events, runs });
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

  /**
   * Delivers the session's events after `after` (at once, even none), then each new one and each
   * change of its runs; returns the unsubscribe.
   */
  subscribe(sessionId: string, after: number, deliver: (update: FeedUpdate) => void): () => void {
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
