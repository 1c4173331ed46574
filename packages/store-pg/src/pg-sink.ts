// Where a PostgreSQL session's lines go. Session appends are synchronous (see @tern/session): the
// sink numbers each line (seq 1, 2, ... per session, gap-free) and queues it; a writer sends what
// has queued as one statement per batch, in order, while the agent goes on. `flush()` (the agent
// bridge calls it at each turn's end) resolves once every line so far is committed: that is the
// durability point, as fsync is for the file store. A dropped connection pauses the writer (it
// retries with backoff, see retry.ts); a batch is idempotent (ON CONFLICT DO NOTHING on
// (session, seq)), so a batch whose commit was not acknowledged is neither lost nor doubled.
// Each batch also checks and renews the lease: a writer that lost it fails instead of writing.

import type { SessionHeader } from "@tern/session";
import { emptySummaryState, foldLine, type SessionSink, type SummaryState, summaryOf } from "@tern/session";
import type pg from "pg";
import { messageOf, PgStoreError } from "./errors.js";
import { releaseLease, renewLease } from "./lease.js";
import { withRetry } from "./retry.js";

/** Lines per INSERT: bounds a statement's size after a long pause. */
export const DEFAULT_MAX_BATCH = 500;

/** A line as committed, for `onCommitted`. */
export interface CommittedLine {
  seq: number;
  /** The line's type: message, event, custom, ... */
  kind: string;
  line: string;
}

interface Pending {
  seq: number;
  kind: string;
  line: string;
  /** The summary with this line folded in: written with the batch that ends here. */
  summary: SummaryState;
  updated: string;
}

export interface PgSinkOptions {
  pool: pg.Pool;
  header: SessionHeader;
  holder: string;
  leaseMs: number;
  retryForMs: number;
  /** The next line's seq (1 for a new session). */
  nextSeq: number;
  summary?: SummaryState;
  log?: (message: string) => void;
  /** Lines per statement (default 500). */
  maxBatch?: number;
  /** Sees each batch once it is committed, in order (tests stop a process at a chosen line). */
  onCommitted?: (lines: readonly CommittedLine[]) => void;
}

const APPEND_SQL = `
  WITH lease AS (
    UPDATE tern_sessions
       SET lease_expires = now() + $3::int * interval '1 millisecond', summary = $4::jsonb, updated = $5
     WHERE id = $1 AND lease_holder = $2
     RETURNING id
  ), added AS (
    INSERT INTO tern_session_lines (session_id, seq, kind, line)
    SELECT $1, seq, kind, line FROM unnest($6::int[], $7::text[], $8::text[]) AS l (seq, kind, line)
     WHERE EXISTS (SELECT 1 FROM lease)
    ON CONFLICT (session_id, seq) DO NOTHING
  )
  SELECT count(*)::int AS leased FROM lease`;

export class PgSink implements SessionSink {
  private readonly pending: Pending[] = [];
  private writer: Promise<void> | undefined;
  private failure: Error | undefined;
  private nextSeq: number;
  private readonly summary: SummaryState;
  private readonly heartbeat: NodeJS.Timeout;
  private renewing = false;
  private closed = false;

  constructor(private readonly options: PgSinkOptions) {
    this.nextSeq = options.nextSeq;
    this.summary = options.summary ?? emptySummaryState();
    // Renew well before expiry; unref'd so an idle open session does not keep a process alive.
    this.heartbeat = setInterval(() => void this.renew(), Math.max(50, Math.floor(options.leaseMs / 3)));
    this.heartbeat.unref();
  }

  append(line: string): void {
    if (this.failure) throw this.failure;
    const parsed = JSON.parse(line) as { type?: unknown; timestamp?: unknown };
    foldLine(this.summary, parsed);
    const summary = { ...this.summary };
    this.pending.push({
      seq: this.nextSeq++,
      kind: typeof parsed.type === "string" ? parsed.type : "unknown",
      line,
      summary,
      updated: summaryOf(this.options.header, summary).updated,
    });
    this.startWriter();
  }

  async flush(): Promise<void> {
    while (this.writer) await this.writer;
    if (this.failure) throw this.failure;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.heartbeat);
    const { pool, header, holder } = this.options;
    try {
      await this.flush();
    } catch (error) {
      // Failed already (lease lost, or the database gone past the retry window): one try to free
      // the lease, so a healthy database lets the next writer in at once; it expires otherwise.
      await releaseLease(pool, header.id, holder).catch(() => {});
      throw error;
    }
    await withRetry(() => releaseLease(pool, header.id, holder), this.retry("releasing the lease"));
  }

  private startWriter(): void {
    if (this.writer || this.failure) return;
    this.writer = this.drain().finally(() => {
      this.writer = undefined;
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.pending.length > 0) {
        const batch = this.pending.slice(0, this.options.maxBatch ?? DEFAULT_MAX_BATCH);
        await withRetry(() => this.write(batch), this.retry("appending to the session"));
        this.pending.splice(0, batch.length);
        this.options.onCommitted?.(batch);
      }
    } catch (error) {
      this.failure =
        error instanceof PgStoreError
          ? error
          : new PgStoreError(
              "write_failed",
              `session ${this.options.header.id}: append failed: ${messageOf(error)}`,
            );
    }
  }

  private async write(batch: Pending[]): Promise<void> {
    const { pool, header, holder, leaseMs } = this.options;
    const last = batch.at(-1)!;
    const result = await pool.query<{ leased: number }>(APPEND_SQL, [
      header.id,
      holder,
      leaseMs,
      JSON.stringify(last.summary),
      last.updated,
      batch.map((p) => p.seq),
      batch.map((p) => p.kind),
      batch.map((p) => p.line),
    ]);
    if (result.rows[0]?.leased !== 1) throw this.lost();
  }

  private async renew(): Promise<void> {
    if (this.renewing || this.closed || this.failure) return;
    this.renewing = true;
    try {
      const { pool, header, holder, leaseMs } = this.options;
      if (!(await renewLease(pool, header.id, holder, leaseMs))) this.failure = this.lost();
    } catch {
      // The connection is down: the next tick (or the writer's retries) tries again.
    } finally {
      this.renewing = false;
    }
  }

  private lost(): PgStoreError {
    return new PgStoreError(
      "lease_lost",
      `session ${this.options.header.id}: this writer lost its lease (another writer took the session over); nothing more is written`,
    );
  }

  private retry(what: string) {
    return {
      retryForMs: this.options.retryForMs,
      what: `session ${this.options.header.id}: ${what}`,
      ...(this.options.log ? { log: this.options.log } : {}),
    };
  }
}
