// The cluster's tables next to graphile-worker's: `runs` (one row per submitted run: the
// exactly-once ledger and the lease; a trigger announces each one submitted or ending), `events` (each session's persisted events, mirrored so any
// node can stream and replay them) and `controls` (steering, abort and permission answers on their
// way to the worker that holds the session). Migrations are idempotent and run under an advisory
// lock, so several nodes starting at once apply them once; a schema already at SCHEMA_VERSION is
// left alone, because its DDL (a trigger replaced, a column added) locks the tables exclusively and
// deadlocked with a live node's writes when a restarted node migrated in the middle of its runs.
import { Logger, runMigrations } from "graphile-worker";
import type { Pool, PoolClient } from "pg";

export const SCHEMA = "tern_cluster";
/** Says "this session moved": an event was mirrored (event-mirror.ts) or a run submitted or ended. */
export const EVENTS_CHANNEL = "tern_events";
/** Arbitrary, fixed: serializes migrations across nodes. */
const MIGRATION_LOCK = 0x7465726e;
/** Raise it with every change to TABLES, so running nodes' databases get the change. */
export const SCHEMA_VERSION = 1;

const TABLES = `
create schema if not exists ${SCHEMA};
create table if not exists ${SCHEMA}.runs (
  run_id text primary key,
  session_id text not null,
  prompt text not null,
  state text not null default 'queued' check (state in ('queued', 'running', 'done')),
  lease_owner text,
  lease_until timestamptz,
  takeovers integer not null default 0,
  completions integer not null default 0,
  created_at timestamptz not null default now(),
  completed_at timestamptz
);
create index if not exists runs_lease on ${SCHEMA}.runs (lease_until) where state = 'running';
-- A serve node counts a session's runs at each read of its feed (event-feed.ts).
create index if not exists runs_session on ${SCHEMA}.runs (session_id);
create table if not exists ${SCHEMA}.events (
  session_id text not null,
  seq integer not null,
  event jsonb not null,
  primary key (session_id, seq)
);
create table if not exists ${SCHEMA}.controls (
  id bigserial primary key,
  session_id text not null,
  body jsonb not null,
  created_at timestamptz not null default now()
);
-- A steering or interrupt message is taken once, by the worker running its session (run-messages.ts).
alter table ${SCHEMA}.controls add column if not exists taken_at timestamptz;
create index if not exists controls_waiting on ${SCHEMA}.controls (session_id) where taken_at is null;
-- A run submitted or ending wakes the serve nodes watching its session (event-feed.ts).
create or replace function ${SCHEMA}.notify_run() returns trigger language plpgsql as $$
begin
  perform pg_notify('${EVENTS_CHANNEL}', new.session_id);
  return null;
end $$;
drop trigger if exists runs_notify on ${SCHEMA}.runs;
create trigger runs_notify after insert or update of state on ${SCHEMA}.runs
  for each row execute function ${SCHEMA}.notify_run();
`;

/** graphile-worker's schema, then ours. `onGraphileError` as in quietLogger. */
export async function migrate(
  pool: Pool,
  connectionString: string,
  onGraphileError?: GraphileErrorListener,
): Promise<void> {
  await runMigrations({ connectionString, logger: quietLogger(onGraphileError) });
  const client = await pool.connect();
  try {
    await client.query("begin");
    await client.query("select pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    if ((await appliedVersion(client)) < SCHEMA_VERSION) {
      await client.query(TABLES);
      await client.query(`delete from ${SCHEMA}.schema_version`);
      await client.query(`insert into ${SCHEMA}.schema_version (version) values ($1)`, [SCHEMA_VERSION]);
    }
    await client.query("commit");
  } catch (error) {
    await client.query("rollback").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

/** 0 when the schema predates the version table or does not exist yet. */
async function appliedVersion(client: PoolClient): Promise<number> {
  await client.query(`create schema if not exists ${SCHEMA}`);
  await client.query(`create table if not exists ${SCHEMA}.schema_version (version integer not null)`);
  const { rows } = await client.query<{ version: number }>(
    `select max(version) as version from ${SCHEMA}.schema_version`,
  );
  return rows[0]?.version ?? 0;
}

/** Told graphile-worker's error-level lines (the CLI writes them to stderr under TERN_CLUSTER_DEBUG). */
export type GraphileErrorListener = (message: string) => void;

/**
 * graphile-worker logs job failures at error level, and a takeover's "locked" retry is expected,
 * so its lines are dropped unless the host asks for the errors (debugging a cluster).
 */
export function quietLogger(onGraphileError?: GraphileErrorListener): Logger {
  return new Logger(() => (level, message) => {
    if (level === "error") onGraphileError?.(message);
  });
}
