// One run, executed by whichever worker holds its job. The lease on the `runs` row is taken (or
// taken over) first, then the session is opened for writing (its single-writer lock; crash repair
// gives every unfinished tool call the interrupted result, so no call runs twice), and the run
// starts, is continued, is only closed (its answer saved, its end never told: run-end.ts), or is
// only completed, depending on what the session log says happened (run-marker.ts). Messages a
// node sent for the run reach it through its ServedRun, and those that come as it ends are run as
// its follow-ups (run-messages.ts). The run is marked done in the same statement that checks it
// was not: a run completes exactly once however many workers touched it.

import { type EngineOptions, ServerSession } from "@tern/server";
import { resumeSession, type Session, SessionError, type SessionStore } from "@tern/session";
import { isDatabaseUnavailable, messageOf } from "@tern/store-pg";
import type { Pool } from "pg";
import type { LiveRun } from "./control.js";
import { RETRY_MS, retrying } from "./db.js";
import { EventMirror } from "./event-mirror.js";
import { closeRun } from "./run-end.js";
import { markRun, runProgress } from "./run-marker.js";
import { finishRun, ServedRun } from "./run-messages.js";
import { SCHEMA } from "./schema.js";

export type RunEngineOptions = Pick<
  EngineOptions,
  "models" | "configureAgent" | "secrets" | "permissionTimeoutMs"
>;

export interface RunContext {
  pool: Pool;
  store: SessionStore;
  engine: RunEngineOptions;
  leaseMs: number;
  heartbeatMs: number;
  /** Sessions this process runs now, for the control channel. */
  live: Map<string, LiveRun>;
  log: (line: string) => void;
  /** Told at named steps of a run (tests stop the process there to prove a takeover). */
  onStep?: (step: RunStep, run: { runId: string; sessionId: string }) => void;
}

/** `mirrored`: every event of the finished run is in `events`; the run is not yet marked done. */
export type RunStep = "mirrored";

/** How often a worker tries again to open a session another live process still writes. */
const LOCK_RETRY_MS = 250;

export type RunOutcome = "completed" | "already_done" | "unknown_run";

export async function executeRun(ctx: RunContext, runId: string, owner: string): Promise<RunOutcome> {
  const { pool } = ctx;
  // Claimed again by the same owner (its task retried after the database was away) is no takeover.
  const claim = await retrying(() =>
    pool.query(
      `update ${SCHEMA}.runs
          set takeovers = takeovers + (case when state = 'running' and lease_owner is distinct from $2 then 1 else 0 end),
              state = 'running', lease_owner = $2, lease_until = now() + $3 * interval '1 millisecond'
        where run_id = $1 and state <> 'done'
        returning session_id, prompt`,
      [runId, owner, ctx.leaseMs],
    ),
  );
  if (claim.rowCount === 0) {
    const known = await retrying(() => pool.query(`select 1 from ${SCHEMA}.runs where run_id = $1`, [runId]));
    return known.rowCount === 0 ? "unknown_run" : "already_done";
  }
  const { session_id: sessionId, prompt } = claim.rows[0] as { session_id: string; prompt: string };
  const stopHeartbeat = keepLease(ctx, runId, owner);
  let resumed: Awaited<ReturnType<typeof resumeSession>> | undefined;
  try {
    resumed = await openWhenFree(ctx, sessionId, runId);
  } finally {
    if (!resumed) stopHeartbeat();
  }
  if (!resumed) return "already_done";
  const { session, context } = resumed;
  const mirror = new EventMirror(pool, session);
  let served: ServedRun | undefined;
  const serve = () => {
    served ??= openServed(ctx, session, context.model?.modelId);
    return served;
  };
  try {
    session.addSecrets(ctx.engine.secrets ?? []);
    await mirror.sync(); // a takeover first publishes what the last worker persisted
    const progress = runProgress(session, runId);
    if (progress === "answered") closeRun(session, runId);
    else if (progress !== "finished") {
      const run = serve();
      await drive(run, mirror, async () => {
        if (progress === "not_started") {
          markRun(session, runId);
          await session.flush();
          run.session.run(prompt);
        } else if (progress === "prompt_missing") run.session.run(prompt);
        else run.session.continue();
      });
    }
    for (;;) {
      await session.flush();
      await mirror.sync();
      ctx.onStep?.("mirrored", { runId, sessionId });
      const waiting = await retrying(() => finishRun(pool, runId, sessionId));
      if (waiting.length === 0) return "completed";
      const run = serve();
      await drive(run, mirror, () => {
        for (const message of waiting) run.give(message);
      });
    }
  } finally {
    stopHeartbeat();
    mirror.stop();
    ctx.live.delete(sessionId);
    if (served) await served.session.close();
    else await session.close();
  }
}

/**
 * Renews the run's lease every heartbeat. A renewal the database did not answer is tried again
 * every RETRY_MS rather than at the next beat, so the lease is renewed as soon as the database is
 * back: an outage shorter than the lease (less a heartbeat) never lets it run out. Only a renewal
 * that finds the lease gone (swept after it really ran out) is "lease lost". Returns the stop.
 */
function keepLease(ctx: RunContext, runId: string, owner: string): () => void {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const beat = async () => {
    let next = ctx.heartbeatMs;
    try {
      const result = await ctx.pool.query(
        `update ${SCHEMA}.runs set lease_until = now() + $3 * interval '1 millisecond'
          where run_id = $1 and lease_owner = $2 and state = 'running'`,
        [runId, owner, ctx.leaseMs],
      );
      // Swept as dead (cut off longer than the lease): another worker may try the run, but this
      // process still holds the session's lease, so that one waits, and the state check that
      // marks the run done completes it once.
      if (result.rowCount === 0 && !stopped) ctx.log(`run ${runId}: lease lost while running`);
    } catch (error) {
      if (!isDatabaseUnavailable(error)) ctx.log(`run ${runId}: lease renewal failed: ${messageOf(error)}`);
      next = Math.min(RETRY_MS, ctx.heartbeatMs);
    }
    if (!stopped) timer = setTimeout(beat, next);
  };
  timer = setTimeout(beat, ctx.heartbeatMs);
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/** The session as a served one, with the worker's model and agent, registered for controls. */
function openServed(ctx: RunContext, session: Session, modelId: string | undefined): ServedRun {
  const model = (modelId && ctx.engine.models.resolve(modelId)) ?? ctx.engine.models.resolve();
  if (!model) throw new Error("the worker has no model for this session");
  const served = new ServerSession({
    session,
    model,
    cwd: session.header.cwd,
    source: "resume",
    ...(ctx.engine.configureAgent ? { configureAgent: ctx.engine.configureAgent } : {}),
    ...(ctx.engine.permissionTimeoutMs !== undefined
      ? { permissionTimeoutMs: ctx.engine.permissionTimeoutMs }
      : {}),
  });
  const run = new ServedRun(served, ctx.pool, ctx.log);
  ctx.live.set(session.id, run);
  return run;
}

/**
 * Starts the run (or its follow-up) and waits for it and for the messages sent meanwhile,
 * copying each persisted event as it comes.
 */
async function drive(run: ServedRun, mirror: EventMirror, start: () => void | Promise<void>): Promise<void> {
  const unsubscribe = run.session.journal.subscribe((entry) => {
    if (entry.seq !== undefined) mirror.kick();
  });
  try {
    await start();
    run.deliver(); // messages sent while the run waited in the queue
    await run.settle();
  } finally {
    unsubscribe();
  }
}

/**
 * Opens the session for writing. While another live process holds it (a worker swept as dead
 * that is in fact still running the run), waits here rather than failing the job, whose retry
 * graphile-worker would push back further each time; gives up once that process completed the
 * run (undefined).
 */
async function openWhenFree(ctx: RunContext, sessionId: string, runId: string) {
  for (;;) {
    try {
      // The database away: wait for it here too, so the job is not failed and retried later.
      return await retrying(() => resumeSession(ctx.store, sessionId));
    } catch (error) {
      if (!(error instanceof SessionError && error.code === "locked")) throw error;
    }
    const { rows } = await retrying(() =>
      ctx.pool.query(`select state from ${SCHEMA}.runs where run_id = $1`, [runId]),
    );
    if (rows[0]?.state === "done") return undefined;
    await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
  }
}
