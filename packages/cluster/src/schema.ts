// The cluster's tables next to graphile-worker's: `runs` (one row per submitted run: the
// exactly-once ledger and the lease; a trigger announces each one submitted or ending), `events` (each session's persisted events, mirrored so any
// node can stream and replay them) and `controls` (steering, abort and permission answers on their
// way to the worker that holds the session). Migrations are idempotent and run under an advisory
// lock, so several nodes starting at once apply them once.
import { Logger, runMigrations } from "graphile-worker";
import type { Pool } from "pg";

export const SCHEMA = "tern_cluster";
/** Says "this session moved": an event was mirrored (event-mirror.ts) or a run submitted or ended. */
export const EVENTS_CHANNEL = "tern_events";
/** Arbitrary, fixed: serializes migrations across nodes. */
const MIGRATION_LOCK = 0x7465726e;

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
    await client.query("select pg_advisory_lock($1)", [MIGRATION_LOCK]);
    try {
      await client.query(TABLES);
    } finally {
      await client.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK]);
    }
  } finally {
    client.release();
  }
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
