// The PostgreSQL SessionStore: sessions as rows, their lines as append-only rows numbered per
// session, the single writer as a lease on the session's row. A session read back is parsed by
// the very reader the file store uses (parseSession over the same JSON lines), so both stores
// give the same tree, event log, checks and crash repair. The constructor connects lazily (the
// first call connects and migrates); `connect()` does it eagerly, so a command can fail at start.
import { randomUUID } from "node:crypto";
import { resolve } from "node:path";
import {
  type ContextOptions,
  type CreateSessionOptions,
  checkSessionId,
  type ForkOptions,
  forkSession,
  parseSession,
  SESSION_FORMAT_VERSION,
  Session,
  SessionError,
  type SessionHeader,
  type SessionOptions,
  type SessionStore,
  type SessionSummary,
  type StoreHealth,
  type SummaryState,
  summaryOf,
  unreadableSummary,
} from "@tern/session";
import pg from "pg";
import { isDatabaseUnavailable, messageOf, PgStoreError } from "./errors.js";
import { DEFAULT_LEASE_MS, leaseOf, newHolderId, takeLease } from "./lease.js";
import { migrate, schemaStatus } from "./migrations.js";
import { type CommittedLine, PgSink } from "./pg-sink.js";
import { surviveLostConnections } from "./pool-errors.js";
import { describeTarget } from "./redact.js";
import { withRetry } from "./retry.js";

/** How long appends wait out a dropped connection before the run fails. */
export const DEFAULT_RETRY_FOR_MS = 5 * 60_000;
/** A connect attempt that hangs longer than this counts as a failed one. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 1_500;
/** How long a request (create, open, load, list, delete) retries a dropped connection before "unavailable". */
export const DEFAULT_REQUEST_RETRY_MS = 500;
/** After an "unavailable", requests fail at once for this long instead of each waiting again. */
export const DEFAULT_DOWN_FOR_MS = 1_000;
const POOL_SIZE = 10;
/** /healthz must answer even when the database hangs. */
const HEALTH_TIMEOUT_MS = 2_000;

export interface PgSessionStoreOptions extends SessionOptions {
  /** postgres://user:password@host:port/db; without it, the PG* environment variables. */
  url?: string;
  /** Use this pool instead of opening one (it is not ended by close()). */
  pool?: pg.Pool;
  /** Lease length: how long a dead writer blocks its sessions. Default 30 s. */
  leaseMs?: number;
  /** How long appends retry a dropped connection. Default 5 min. */
  retryForMs?: number;
  /** How long requests retry a dropped connection before SessionError("unavailable"). Default 500 ms. */
  requestRetryMs?: number;
  /** Requests fail at once for this long after an "unavailable". Default 1 s. */
  downForMs?: number;
  /** A connect attempt that hangs fails after this long. Default 1.5 s. */
  connectTimeoutMs?: number;
  /** The clock of the "known down" window (tests inject one). Default Date.now. */
  clock?: () => number;
  /** Migrate on first use (default true). */
  migrate?: boolean;
  /** Retries and connection problems, one line each, passwords redacted. */
  log?: (message: string) => void;
  contextOptions?: ContextOptions;
  /** Lines per append statement (default 500; 1 commits each line on its own). */
  maxBatchLines?: number;
  /** Sees each append batch of a session once it is committed (tests inject faults there). */
  onCommitted?: (sessionId: string, lines: readonly CommittedLine[]) => void;
}

export class PgSessionStore implements SessionStore {
  readonly pool: pg.Pool;
  /** The store's address without its password, for messages. */
  readonly target: string;
  private readonly ownsPool: boolean;
  private readying: Promise<void> | undefined;
  /** Until when (clock ms) the database is known to be down: requests fail at once. */
  private downUntil = 0;

  constructor(private readonly options: PgSessionStoreOptions = {}) {
    this.target = describeTarget(options.url);
    this.ownsPool = options.pool === undefined;
    this.pool =
      options.pool ??
      new pg.Pool({
        ...(options.url ? { connectionString: options.url } : {}),
        max: POOL_SIZE,
        connectionTimeoutMillis: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      });
    // A connection killed by a restart must not crash the process: the next query reconnects.
    surviveLostConnections(this.pool, (line) => options.log?.(`session store: ${line}`));
  }

  /** Opens a store and checks, now, that the database answers and its schema is usable. */
  static async connect(options: PgSessionStoreOptions = {}): Promise<PgSessionStore> {
    const store = new PgSessionStore(options);
    try {
      await store.ready();
      return store;
    } catch (error) {
      await store.close();
      throw error;
    }
  }

  /** Connects and (unless `migrate: false`) migrates, once; a failure is retried by the next call. */
  ready(): Promise<void> {
    this.readying ??= this.prepare().catch((error) => {
      this.readying = undefined;
      throw error;
    });
    return this.readying;
  }

  async create(options: CreateSessionOptions = {}): Promise<Session> {
    // Asked first, synchronously: a caller that sets the next id just before create() (the
    // server's engine does) must not see another create take it while this one connects.
    const id = (this.options.newSessionId ?? randomUUID)();
    checkSessionId(id);
    await this.readyForRequest();
    const header: SessionHeader = {
      type: "session",
      version: SESSION_FORMAT_VERSION,
      id,
      created: new Date((this.options.now ?? Date.now)()).toISOString(),
      cwd: resolve(options.cwd ?? process.cwd()),
      ...(options.parentSession ? { parentSession: options.parentSession } : {}),
      ...(options.settings ? { settings: { ...options.settings } } : {}),
    };
    const holder = newHolderId();
    const summary: SummaryState = { messageCount: 0, cost: 0 };
    const created = await this.retrying("creating a session", async () => {
      const result = await this.pool.query(
        `INSERT INTO tern_sessions (id, cwd, header, summary, updated, lease_holder, lease_expires)
         VALUES ($1, $2, $3, $4::jsonb, $5, $6, now() + $7::int * interval '1 millisecond')
         ON CONFLICT (id) DO NOTHING`,
        [
          id,
          header.cwd,
          JSON.stringify(header),
          JSON.stringify(summary),
          header.created,
          holder,
          this.leaseMs,
        ],
      );
      // A retry after an unacknowledged commit finds its own row.
      return result.rowCount === 1 || (await leaseOf(this.pool, id))?.holder === holder;
    });
    if (!created) throw new SessionError("invalid", `session ${id} already exists in ${this.target}`);
    const session = this.session(header, [], this.sink(header, holder, 1, summary));
    if (options.name !== undefined) session.setName(options.name);
    return session;
  }

  async open(id: string): Promise<Session> {
    checkSessionId(id);
    await this.readyForRequest();
    const holder = newHolderId();
    const taken = await this.retrying("opening a session", () =>
      takeLease(this.pool, id, holder, this.leaseMs),
    );
    if (!taken) {
      const lease = await this.retrying("opening a session", () => leaseOf(this.pool, id));
      if (!lease) throw notFound(id, this.target);
      throw new SessionError(
        "locked",
        `session ${id} is being written by ${lease.holder} (lease ends in ${Math.max(0, Math.ceil((lease.remainingMs ?? 0) / 1000))} s unless renewed)`,
      );
    }
    try {
      const { header, lines, summary } = await this.read(id);
      return this.session(header, lines, this.sink(header, holder, lines.length + 1, summary));
    } catch (error) {
      await this.pool
        .query("UPDATE tern_sessions SET lease_holder = NULL WHERE id = $1 AND lease_holder = $2", [
          id,
          holder,
        ])
        .catch(() => {});
      throw error;
    }
  }

  async load(id: string): Promise<Session> {
    checkSessionId(id);
    await this.readyForRequest();
    const { header, lines } = await this.read(id);
    return this.session(header, lines, undefined);
  }

  async list(filter: { cwd?: string } = {}): Promise<SessionSummary[]> {
    await this.readyForRequest();
    const byCwd = filter.cwd !== undefined;
    const result = await this.retrying("listing sessions", () =>
      this.pool.query<{ id: string; header: string; summary: SummaryState }>(
        `SELECT id, header, summary FROM tern_sessions ${byCwd ? "WHERE cwd = $1" : ""} ORDER BY updated DESC`,
        byCwd ? [resolve(filter.cwd!)] : [],
      ),
    );
    return result.rows.map((row) => {
      try {
        return summaryOf(JSON.parse(row.header) as SessionHeader, row.summary);
      } catch (error) {
        return unreadableSummary(row.id, messageOf(error));
      }
    });
  }

  /** Removes the session and its lines; refuses while a live writer holds it. */
  async delete(id: string): Promise<void> {
    checkSessionId(id);
    await this.readyForRequest();
    const result = await this.retrying("deleting a session", () =>
      this.pool.query(
        "DELETE FROM tern_sessions WHERE id = $1 AND (lease_holder IS NULL OR lease_expires < now())",
        [id],
      ),
    );
    if (result.rowCount === 1) return;
    const lease = await this.retrying("deleting a session", () => leaseOf(this.pool, id));
    if (!lease) throw notFound(id, this.target);
    throw new SessionError("locked", `session ${id}: cannot delete, ${lease.holder} is writing it`);
  }

  fork(id: string, options: ForkOptions = {}): Promise<Session> {
    return forkSession(this, id, options);
  }

  /** The session as the JSONL a file store would hold: header, then every line in order. */
  async jsonl(id: string): Promise<string> {
    checkSessionId(id);
    await this.readyForRequest();
    const { header, lines } = await this.read(id);
    return jsonlText(header, lines);
  }

  /** Reachable and on this code's schema? Answers within HEALTH_TIMEOUT_MS even when the database hangs. */
  async health(): Promise<StoreHealth> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer within ${HEALTH_TIMEOUT_MS} ms`)),
        HEALTH_TIMEOUT_MS,
      );
    });
    try {
      const status = await Promise.race([schemaStatus(this.pool), timeout]);
      return {
        kind: "postgres",
        ok: status.current === status.latest,
        schemaVersion: status.current,
        ...(status.current === status.latest
          ? {}
          : { error: `schema version ${status.current}, this tern needs ${status.latest}` }),
      };
    } catch (error) {
      return { kind: "postgres", ok: false, error: `unreachable: ${messageOf(error)}` };
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    if (this.ownsPool) await this.pool.end();
  }

  private get leaseMs(): number {
    return this.options.leaseMs ?? DEFAULT_LEASE_MS;
  }

  private async prepare(): Promise<void> {
    try {
      if (this.options.migrate === false) await this.pool.query("SELECT 1");
      else await migrate(this.pool);
    } catch (error) {
      if (error instanceof PgStoreError) throw error;
      if (isDatabaseUnavailable(error) || !(error as { code?: unknown }).code)
        throw new PgStoreError(
          "unreachable",
          `cannot reach the session store at ${this.target}: ${messageOf(error)}`,
        );
      throw new PgStoreError(
        "schema",
        `cannot prepare the session store at ${this.target}: ${messageOf(error)}`,
      );
    }
  }

  private async read(id: string): Promise<{ header: SessionHeader; lines: string[]; summary: SummaryState }> {
    return this.retrying("reading a session", async () => {
      // One snapshot for the header and the lines: a concurrent writer's batch is all in or all out.
      const client = await this.pool.connect();
      try {
        await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
        const row = await client.query<{ header: string; summary: SummaryState }>(
          "SELECT header, summary FROM tern_sessions WHERE id = $1",
          [id],
        );
        if (!row.rows[0]) throw notFound(id, this.target);
        const lines = await client.query<{ seq: number; line: string }>(
          "SELECT seq, line FROM tern_session_lines WHERE session_id = $1 ORDER BY seq",
          [id],
        );
        await client.query("COMMIT");
        lines.rows.forEach((line, i) => {
          if (line.seq !== i + 1)
            throw new SessionError(
              "corrupt",
              `session ${id}: line ${i + 1} is missing (found seq ${line.seq})`,
            );
        });
        const header = JSON.parse(row.rows[0].header) as SessionHeader;
        return { header, lines: lines.rows.map((line) => line.line), summary: row.rows[0].summary };
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    });
  }

  /** Parses the lines with the file store's reader: the same checks, the same tree and events. */
  private session(header: SessionHeader, lines: string[], sink: PgSink | undefined): Session {
    const parsed = parseSession(jsonlText(header, lines), `postgres:${header.id}`);
    return new Session({
      header: parsed.header,
      entries: parsed.entries,
      events: parsed.events,
      warnings: parsed.warnings,
      ...(sink ? { sink } : {}),
      options: this.options,
      ...(this.options.contextOptions ? { contextOptions: this.options.contextOptions } : {}),
    });
  }

  private sink(header: SessionHeader, holder: string, nextSeq: number, summary: SummaryState): PgSink {
    return new PgSink({
      pool: this.pool,
      header,
      holder,
      leaseMs: this.leaseMs,
      retryForMs: this.options.retryForMs ?? DEFAULT_RETRY_FOR_MS,
      nextSeq,
      summary,
      ...(this.options.log ? { log: this.options.log } : {}),
      ...(this.options.maxBatchLines !== undefined ? { maxBatch: this.options.maxBatchLines } : {}),
      ...(this.options.onCommitted
        ? { onCommitted: (lines: readonly CommittedLine[]) => this.options.onCommitted?.(header.id, lines) }
        : {}),
    });
  }

  /**
   * A request's database call: retried over a dropped connection for `requestRetryMs` only, then
   * SessionError("unavailable"), which a server answers with 503 and Retry-After. While the
   * database is known to be down, fails at once. (Appends, inside a run, wait far longer: pg-sink.)
   */
  private async retrying<T>(what: string, call: () => Promise<T>): Promise<T> {
    this.refuseWhileDown(what);
    try {
      return await withRetry(call, {
        what: `session store ${this.target}: ${what}`,
        retryForMs: this.options.requestRetryMs ?? DEFAULT_REQUEST_RETRY_MS,
        ...(this.options.log ? { log: this.options.log } : {}),
      });
    } catch (error) {
      throw this.unavailableOr(error, what);
    }
  }

  /** `ready()` for a request: an unreachable database is "unavailable", not a start-up failure. */
  private async readyForRequest(): Promise<void> {
    this.refuseWhileDown("connecting");
    try {
      await this.ready();
    } catch (error) {
      throw this.unavailableOr(error, "connecting");
    }
  }

  private refuseWhileDown(what: string): void {
    if (this.now() < this.downUntil)
      throw new SessionError(
        "unavailable",
        `session store ${this.target}: ${what}: the database is unavailable; try again shortly`,
      );
  }

  private unavailableOr(error: unknown, what: string): unknown {
    if (!isDatabaseUnavailable(error) || error instanceof SessionError) return error;
    this.downUntil = this.now() + (this.options.downForMs ?? DEFAULT_DOWN_FOR_MS);
    return new SessionError(
      "unavailable",
      `session store ${this.target}: ${what}: the database is unavailable (${messageOf(error)}); try again shortly`,
    );
  }

  private now(): number {
    return (this.options.clock ?? Date.now)();
  }
}

function jsonlText(header: SessionHeader, lines: string[]): string {
  return [JSON.stringify(header), ...lines, ""].join("\n");
}

function notFound(id: string, target: string): SessionError {
  return new SessionError("not_found", `no session "${id}" in ${target}`);
}
