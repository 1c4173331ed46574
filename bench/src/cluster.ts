// The cluster (@tern/cluster) on a throwaway PostgreSQL: runs per second with 1, 2 and 4 worker
// processes (one run at a time each) on a scripted model with MODEL_LATENCY_MS per turn (two turns a run: a tool call, then
// the answer), interleaved round by round so the machine's load hits every count alike; and the
// takeover time after a SIGKILL (the dead worker's lease running out to another worker resuming
// the run), measured on the database's clock. Medians with their range. Sessions live in the
// PostgreSQL session store, as with `tern worker` (BENCH_CLUSTER_STORE=file: the shared file store).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { enqueueRun } from "@tern/cluster";
import { FileSessionStore, liveLockOwner, type SessionStore } from "@tern/session";
import { holderPid, PgSessionStore } from "@tern/store-pg";
import pg from "pg";
import { startModelServer } from "../../packages/cluster/test/support/model-server.js";
import { Nodes } from "../../packages/cluster/test/support/nodes.js";
import { startTestPostgres } from "../../packages/session/test/support/postgres.js";
import { round } from "./measure.js";
import { percentile } from "./workloads/stats.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WORKER_COUNTS = [1, 2, 4];
const RUNS_PER_ROUND = 40;
/** One run at a time per worker process, so the figure is per worker, not per slot. */
const CONCURRENCY = 1;
const MODEL_LATENCY_MS = 200;
const LEASE_MS = 3000;
const TAKEOVERS = 5;
const POLL_MS = 20;
const STORE = process.env.BENCH_CLUSTER_STORE === "file" ? "file" : "pg";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function clusterBench() {
  const db = await startTestPostgres();
  const model = await startModelServer(MODEL_LATENCY_MS);
  const home = mkdtempSync(join(tmpdir(), "tern-bench-cluster-"));
  const nodes = new Nodes({
    pgUrl: db.url,
    home,
    modelUrl: model.baseUrl,
    leaseMs: LEASE_MS,
    concurrency: CONCURRENCY,
    store: STORE,
  });
  const pool = new pg.Pool({ connectionString: db.url });
  const store: SessionStore =
    STORE === "pg"
      ? await PgSessionStore.connect({ url: db.url })
      : new FileSessionStore({ home, fsync: "never" });
  try {
    // The schema: the first worker migrates it.
    const first = await nodes.spawn("worker");
    first.child.kill("SIGKILL");
    const throughput: Record<number, number[]> = Object.fromEntries(WORKER_COUNTS.map((n) => [n, []]));
    for (let round_ = 0; round_ < ROUNDS; round_++) {
      for (const count of WORKER_COUNTS) {
        const workers = await Promise.all(Array.from({ length: count }, () => nodes.spawn("worker")));
        const start = performance.now();
        await submitAndWait(pool, store, home, RUNS_PER_ROUND);
        throughput[count]!.push(RUNS_PER_ROUND / ((performance.now() - start) / 1000));
        for (const worker of workers) worker.child.kill("SIGKILL");
        process.stderr.write(`cluster: round ${round_ + 1}, ${count} worker(s) done\n`);
      }
    }
    const takeovers: { killToResumed: number; expiryToResumed: number }[] = [];
    const workers = await Promise.all([nodes.spawn("worker"), nodes.spawn("worker")]);
    for (let i = 0; i < TAKEOVERS; i++) {
      model.hold();
      const session = await store.create({ cwd: home });
      await session.close();
      const runId = await enqueueRun(pool, session.id, "bench");
      let holder: number | undefined;
      while (holder === undefined) {
        await sleep(POLL_MS);
        holder = await holderOf(pool, store, home, session.id);
      }
      const index = workers.findIndex((worker) => worker.child.pid === holder);
      const killedAt = performance.now();
      workers[index]!.child.kill("SIGKILL");
      model.release();
      const { rows } = await pool.query("select lease_until from tern_cluster.runs where run_id = $1", [
        runId,
      ]);
      const expiry = rows[0].lease_until as Date;
      let resumed: Date | undefined;
      while (!resumed) {
        await sleep(POLL_MS);
        const now = await pool.query(
          "select now() as now from tern_cluster.runs where run_id = $1 and takeovers > 0",
          [runId],
        );
        if (now.rows[0]) resumed = now.rows[0].now as Date;
      }
      takeovers.push({
        killToResumed: performance.now() - killedAt,
        expiryToResumed: resumed.getTime() - expiry.getTime(),
      });
      workers[index] = await nodes.spawn("worker");
      await waitDone(pool, [runId]);
    }
    const rows: Record<string, string | number>[] = WORKER_COUNTS.map((count) => ({
      case: `${count} worker(s), ${CONCURRENCY} run(s) each at once, ${STORE} store`,
      "median runs/s": round(percentile(throughput[count]!, 50), 2),
      "min runs/s": round(Math.min(...throughput[count]!), 2),
      "max runs/s": round(Math.max(...throughput[count]!), 2),
      rounds: ROUNDS,
    }));
    for (const key of ["killToResumed", "expiryToResumed"] as const) {
      const values = takeovers.map((t) => t[key]);
      rows.push({
        case:
          key === "killToResumed"
            ? `takeover: kill -> resumed (lease ${LEASE_MS} ms), ms`
            : "takeover: lease expiry -> resumed, ms",
        "median runs/s": round(percentile(values, 50), 0),
        "min runs/s": round(Math.min(...values), 0),
        "max runs/s": round(Math.max(...values), 0),
        rounds: TAKEOVERS,
      });
    }
    return rows;
  } finally {
    nodes.killAll();
    await store.close?.();
    await pool.end();
    await model.close();
    await db.dispose();
    rmSync(home, { recursive: true, force: true });
  }
}

/** The pid writing the session: the file lock's owner, or the PostgreSQL lease's holder ("host:pid:…"). */
async function holderOf(
  pool: pg.Pool,
  store: SessionStore,
  home: string,
  id: string,
): Promise<number | undefined> {
  if (store instanceof FileSessionStore) return liveLockOwner(store.pathFor(home, id))?.pid;
  const { rows } = await pool.query("select lease_holder from tern_sessions where id = $1", [id]);
  return holderPid(rows[0]?.lease_holder);
}

async function submitAndWait(pool: pg.Pool, store: SessionStore, cwd: string, runs: number): Promise<void> {
  const ids = await Promise.all(
    Array.from({ length: runs }, async (_, i) => {
      const session = await store.create({ cwd });
      await session.close();
      return enqueueRun(pool, session.id, `task ${i}`);
    }),
  );
  await waitDone(pool, ids);
}

async function waitDone(pool: pg.Pool, ids: string[]): Promise<void> {
  for (;;) {
    const { rows } = await pool.query(
      "select count(*)::int as n from tern_cluster.runs where run_id = any($1::text[]) and state = 'done'",
      [ids],
    );
    if (rows[0].n === ids.length) return;
    await sleep(POLL_MS);
  }
}
