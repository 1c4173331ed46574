// A worker: graphile-worker takes `tern_run` jobs off the database (several at once), and each
// job runs through executeRun. graphile-worker's own lock on a job never expires by itself (its
// stale-lock reset waits hours), so liveness is ours: a run's lease in `runs` is renewed every
// heartbeat, and every worker sweeps for leases that ran out, handing the dead holders' jobs back
// with graphile-worker's force_unlock_workers. Another worker then takes the run over. A database
// outage is weather: graphile-worker gets a pool whose connects wait for the database, its error
// events are logged, a task waits for the database rather than failing its job, and the sweep
// judges no lease until the database has been up for a whole lease (a restart is nobody's death).
import type { SessionStore } from "@tern/session";
import { messageOf } from "@tern/store-pg";
import { type Runner, run as runGraphile, type Task } from "graphile-worker";
import { CONTROL_CHANNEL, type LiveRun, receiveControl } from "./control.js";
import { createPatientPool, createPool, retrying } from "./db.js";
import { Listener } from "./listener.js";
import { RUN_TASK, type RunPayload } from "./queue.js";
import { executeRun, type RunContext, type RunEngineOptions } from "./run-job.js";
import { type GraphileErrorListener, migrate, quietLogger, SCHEMA } from "./schema.js";

/** How long a run's holder may go silent before another worker takes the run. */
export const DEFAULT_LEASE_MS = 15_000;
/** How often a holder renews its lease (and every worker sweeps): a third of the lease. */
export const DEFAULT_HEARTBEAT_MS = 5_000;
/** How often graphile-worker looks for jobs it was not told about (retries, unlocked jobs). */
const POLL_MS = 500;

export interface WorkerOptions {
  connectionString: string;
  store: SessionStore;
  engine: RunEngineOptions;
  /** Runs at once in this process. Default 4. */
  concurrency?: number;
  leaseMs?: number;
  heartbeatMs?: number;
  log?: (line: string) => void;
  /** Told graphile-worker's error-level lines, which are dropped without it (see quietLogger). */
  onGraphileError?: GraphileErrorListener;
  /** Told at named steps of each run (run-job.ts); tests stop the process there. */
  onStep?: RunContext["onStep"];
}

export interface ClusterWorker {
  /** Sessions running here now. */
  readonly live: ReadonlyMap<string, LiveRun>;
  /** Stops taking runs, waits for the ones going, and disconnects. */
  stop(): Promise<void>;
}

export async function startWorker(options: WorkerOptions): Promise<ClusterWorker> {
  const log = options.log ?? (() => {});
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  const pool = createPool(options.connectionString, log);
  let stopping = false;
  const graphilePool = createPatientPool(options.connectionString, log, () => stopping);
  const live = new Map<string, LiveRun>();
  let runner: Runner | undefined;
  let sweeper: NodeJS.Timeout | undefined;
  let listener: Listener | undefined;
  try {
    await migrate(pool, options.connectionString, options.onGraphileError);
    const ctx: RunContext = {
      pool,
      store: options.store,
      engine: options.engine,
      leaseMs,
      heartbeatMs,
      live,
      log,
      ...(options.onStep ? { onStep: options.onStep } : {}),
    };
    const task: Task = async (payload, helpers) => {
      const { runId } = payload as RunPayload;
      const owner = helpers.job.locked_by;
      if (typeof runId !== "string" || !owner) throw new Error("a tern_run job without a run id");
      // Run again (same owner, so no takeover) when the database was away, instead of failing
      // the job: graphile-worker would retry it only after a backoff, and failing it needs the
      // database too.
      const outcome = await retrying(
        () => executeRun(ctx, runId, owner),
        () => stopping,
        (error) => log(`database unavailable (${messageOf(error)}); the run waits for it`),
      );
      if (outcome === "unknown_run") log(`run ${runId}: no such run; the job is dropped`);
    };
    listener = new Listener(options.connectionString, [CONTROL_CHANNEL], (_channel, payload) => {
      receiveControl(pool, payload, live).catch((error) => log(`control: ${String(error)}`));
    });
    await listener.start();
    runner = await runGraphile({
      pgPool: graphilePool,
      concurrency: options.concurrency ?? 4,
      noHandleSignals: true,
      pollInterval: POLL_MS,
      logger: quietLogger(options.onGraphileError),
      taskList: { [RUN_TASK]: task },
    });
    watchRunner(runner, log, () => stopping);
    sweeper = setInterval(() => {
      sweep(pool, leaseMs).catch(() => {}); // the database is away: the next sweep tries again
    }, heartbeatMs);
  } catch (error) {
    await listener?.close();
    stopping = true;
    await runner?.stop().catch(() => {});
    await pool.end().catch(() => {});
    await graphilePool.end().catch(() => {});
    throw error;
  }
  return {
    live,
    stop: async () => {
      clearInterval(sweeper);
      stopping = true; // from here on nothing waits for an absent database
      await runner?.stop();
      await listener?.close();
      await pool.end();
      await graphilePool.end();
    },
  };
}

/** graphile-worker's failures are logged, never thrown at the process: its runner carries on or is stopped by us. */
function watchRunner(runner: Runner, log: (line: string) => void, stopping: () => boolean): void {
  runner.events.on("pool:listen:error", ({ error }) =>
    log(`job queue: listen connection lost: ${messageOf(error)}`),
  );
  runner.events.on("pool:fatalError", ({ error, action }) =>
    log(`job queue: ${action} failed: ${messageOf(error)}`),
  );
  runner.events.on("worker:fatalError", ({ error }) => log(`job queue: worker failed: ${messageOf(error)}`));
  runner.promise.catch((error: unknown) => {
    if (!stopping()) log(`job queue: the runner stopped: ${messageOf(error)}`);
  });
}

/**
 * Hands back the jobs of holders that went silent: runs whose lease ran out, and jobs locked
 * longer than a lease by a worker with no live lease (it died between taking the job and its
 * first lease). Returns the worker ids unlocked. Nobody is judged until the database has been up
 * for a whole lease: after a restart every live holder gets that long to renew, so an outage is
 * never mistaken for a death.
 */
export async function sweep(pool: import("pg").Pool, leaseMs: number): Promise<string[]> {
  const { rows } = await pool.query(
    `with up as (select now() - pg_postmaster_start_time() >= $1 * interval '1 millisecond' as long_enough)
     select lease_owner as id from ${SCHEMA}.runs, up
      where up.long_enough and state = 'running' and lease_owner is not null and lease_until < now()
     union
     select j.locked_by from graphile_worker._private_jobs j, up
      where up.long_enough and j.locked_by is not null and j.locked_at < now() - $1 * interval '1 millisecond'
        and not exists (select 1 from ${SCHEMA}.runs r
                         where r.lease_owner = j.locked_by and r.state = 'running' and r.lease_until >= now())`,
    [leaseMs],
  );
  const dead = rows.map((row) => row.id as string);
  if (dead.length === 0) return dead;
  await pool.query("select graphile_worker.force_unlock_workers($1::text[])", [dead]);
  await pool.query(
    `update ${SCHEMA}.runs set lease_owner = null where state = 'running' and lease_owner = any($1::text[])`,
    [dead],
  );
  return dead;
}
