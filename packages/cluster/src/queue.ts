// Submitting runs: a `runs` row (the ledger a run completes in exactly once) and a graphile-worker
// job in the session's own queue, so one session's runs go one after another while different
// sessions run in parallel on any worker.
import { randomUUID } from "node:crypto";
import type { Pool } from "pg";
import { SCHEMA } from "./schema.js";

export const RUN_TASK = "tern_run";
/** A run is retried after every takeover; the lease, not a count, decides when it is abandoned. */
export const RUN_MAX_ATTEMPTS = 1000;

export interface RunPayload {
  runId: string;
  sessionId: string;
}

export interface RunRecord {
  runId: string;
  sessionId: string;
  state: "queued" | "running" | "done";
  takeovers: number;
  completions: number;
}

export async function enqueueRun(pool: Pool, sessionId: string, prompt: string): Promise<string> {
  const runId = randomUUID();
  const client = await pool.connect();
  try {
    await client.query("begin");
    await client.query(`insert into ${SCHEMA}.runs (run_id, session_id, prompt) values ($1, $2, $3)`, [
      runId,
      sessionId,
      prompt,
    ]);
    const payload: RunPayload = { runId, sessionId };
    await client.query(
      "select graphile_worker.add_job($1, $2::json, queue_name => $3, max_attempts => $4, job_key => $5)",
      [RUN_TASK, JSON.stringify(payload), `session:${sessionId}`, RUN_MAX_ATTEMPTS, runId],
    );
    await client.query("commit");
  } catch (error) {
    await client.query("rollback").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
  return runId;
}

export async function getRun(pool: Pool, runId: string): Promise<RunRecord | undefined> {
  const { rows } = await pool.query(
    `select run_id, session_id, state, takeovers, completions from ${SCHEMA}.runs where run_id = $1`,
    [runId],
  );
  const row = rows[0];
  if (!row) return undefined;
  return {
    runId: row.run_id,
    sessionId: row.session_id,
    state: row.state,
    takeovers: row.takeovers,
    completions: row.completions,
  };
}
