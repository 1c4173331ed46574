// Versioned schema migrations, run on start. Each migration is applied once, in order, inside one
// transaction that first takes a transaction-scoped advisory lock: nodes starting at once queue on
// the lock, and each one after the first finds nothing left to do. A database whose schema is
// newer than this code is refused rather than written with assumptions that no longer hold.
import type pg from "pg";
import { PgStoreError } from "./errors.js";

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Arbitrary but fixed: the advisory lock key every tern node uses for migrations. */
export const MIGRATION_LOCK_KEY = 7_465_726_101;
export const MIGRATIONS_TABLE = "tern_schema_migrations";

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "sessions, lines, leases",
    sql: `
      CREATE TABLE tern_sessions (
        id            text PRIMARY KEY,
        cwd           text NOT NULL,
        -- the session's header line (JSON), exactly as a file store writes it
        header        text NOT NULL,
        -- the summary fold of @tern/session (title, counts, cost, newest timestamps)
        summary       jsonb NOT NULL,
        -- ISO 8601 of the newest line: what list() sorts by
        updated       text NOT NULL,
        -- the single writer: who holds the session and until when (database clock)
        lease_holder  text,
        lease_expires timestamptz
      );
      CREATE INDEX tern_sessions_updated ON tern_sessions (updated DESC);
      CREATE INDEX tern_sessions_cwd_updated ON tern_sessions (cwd, updated DESC);
      CREATE TABLE tern_session_lines (
        session_id text NOT NULL REFERENCES tern_sessions (id) ON DELETE CASCADE,
        -- 1, 2, ... per session with no gaps: the order of the lines in a session file
        seq        integer NOT NULL CHECK (seq > 0),
        -- the line's type: message, label, event, ...
        kind       text NOT NULL,
        -- one JSON line, redacted and ASCII, exactly as a file store writes it
        line       text NOT NULL,
        PRIMARY KEY (session_id, seq)
      );
    `,
  },
];

export const LATEST_SCHEMA_VERSION = MIGRATIONS.at(-1)!.version;

export interface SchemaStatus {
  /** 0 for an empty database. */
  current: number;
  latest: number;
  pending: number[];
}

/** Applies every pending migration; safe to call from many nodes at once. */
export async function migrate(pool: pg.Pool): Promise<{ from: number; to: number }> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK_KEY]);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (
         version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const from = await currentVersion(client);
    refuseNewer(from);
    for (const migration of MIGRATIONS) {
      if (migration.version <= from) continue;
      await client.query(migration.sql);
      await client.query(`INSERT INTO ${MIGRATIONS_TABLE} (version, name) VALUES ($1, $2)`, [
        migration.version,
        migration.name,
      ]);
    }
    await client.query("COMMIT");
    return { from, to: Math.max(from, LATEST_SCHEMA_VERSION) };
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

export async function schemaStatus(pool: pg.Pool | pg.PoolClient): Promise<SchemaStatus> {
  const exists = await pool.query<{ found: string | null }>("SELECT to_regclass($1) AS found", [
    MIGRATIONS_TABLE,
  ]);
  const current = exists.rows[0]?.found ? await currentVersion(pool) : 0;
  return {
    current,
    latest: LATEST_SCHEMA_VERSION,
    pending: MIGRATIONS.filter((m) => m.version > current).map((m) => m.version),
  };
}

export function refuseNewer(current: number): void {
  if (current > LATEST_SCHEMA_VERSION)
    throw new PgStoreError(
      "schema",
      `the database's tern schema is version ${current}, newer than this tern knows (${LATEST_SCHEMA_VERSION}); upgrade tern`,
    );
}

async function currentVersion(client: pg.Pool | pg.PoolClient): Promise<number> {
  const result = await client.query<{ version: number | null }>(
    `SELECT max(version) AS version FROM ${MIGRATIONS_TABLE}`,
  );
  return result.rows[0]?.version ?? 0;
}
