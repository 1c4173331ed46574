// Database faults are weather: two real worker processes, one run in flight, and the real
// PostgreSQL restarted five times in a row (each outage far shorter than the lease), twice during
// each model turn and once as the run ends. Both workers must survive every restart, nobody may
// take the run over (takeovers stays 0, no "lease lost"), and the run completes once, its end on
// the events table once. The lease is a ceiling here, not a clock: 30 s against restarts of a
// second or two, so the test does not depend on the machine's speed beyond hang ceilings.
import type { ChildProcess } from "node:child_process";
import { PgSessionStore } from "@tern/store-pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { enqueueRun } from "../src/index.js";
import { getRun } from "../src/queue.js";
import { SCHEMA } from "../src/schema.js";
import { startTestCluster, type TestCluster } from "./support/cluster.js";
import { until } from "./support/nodes.js";

const RESTARTS = 5;
const LEASE_MS = 30_000;
const CEILING_MS = 400_000;

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startTestCluster({ modelDelayMs: 20, leaseMs: LEASE_MS, store: "pg", concurrency: 1 });
}, CEILING_MS);

afterAll(async () => {
  await cluster?.dispose();
});

it(
  `workers survive ${RESTARTS} PostgreSQL restarts in a row with no takeover, and the run completes once`,
  async () => {
    const workers = await Promise.all([cluster.nodes.spawn("worker"), cluster.nodes.spawn("worker")]);
    let stderr = "";
    const exits: string[] = [];
    for (const { child } of workers) {
      child.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      child.once("exit", (code, signal) => exits.push(`exited ${code ?? signal}`));
    }
    const store = await PgSessionStore.connect({ url: cluster.pg.url });
    store.pool.on("error", () => {}); // this test's own idle connections die with each restart
    const session = await store.create({ cwd: cluster.home });
    const sessionId = session.id;
    await session.close();

    cluster.model.hold();
    const runId = await enqueueRun(store.pool, sessionId, "weather");
    let restarts = 0;
    const restart = async () => {
      await cluster.pg.restart();
      restarts++;
    };
    await until(() => cluster.model.requests >= 1); // turn 1 is waiting on the model
    await restart();
    await restart();
    cluster.model.release();
    cluster.model.hold();
    await until(() => cluster.model.requests >= 2); // turn 2 (the answer) is waiting on the model
    await restart();
    await restart();
    cluster.model.release();
    await restart(); // while the run saves its answer, mirrors its events and completes
    await until(async () => (await getRun(store.pool, runId).catch(() => undefined))?.state === "done");

    expect(restarts).toBe(RESTARTS);
    expect(exits, `no worker died; the workers' stderr:\n${stderr}`).toEqual([]);
    expect(workers.every(({ child }: { child: ChildProcess }) => child.exitCode === null)).toBe(true);
    expect(await getRun(store.pool, runId)).toMatchObject({ state: "done", completions: 1, takeovers: 0 });
    expect(stderr).not.toContain("lease lost");
    expect(stderr).not.toMatch(/unhandled|ECONNREFUSED\n\s+at /i);
    const { rows } = await store.pool.query<{ event: { type: string } }>(
      `select event from ${SCHEMA}.events where session_id = $1 order by seq`,
      [sessionId],
    );
    expect(rows.filter((row) => row.event.type === "agent_end")).toHaveLength(1);
    expect(rows.at(-1)?.event.type).toBe("agent_end");
    await store.close();
  },
  CEILING_MS,
);
