// Steering and interrupts on their way to a worker are never dropped: a message is recorded only
// while its session has an unfinished run, and the transaction that marks a run done takes the
// messages still waiting instead (the run stays running for them). Straight on the ledger, so
// every ordering of "a message is sent" and "the run ends" is staged exactly, without timing.
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestPostgres, type TestPostgres } from "../../session/test/support/postgres.js";
import { sendControl } from "../src/control.js";
import { enqueueRun, getRun } from "../src/queue.js";
import { finishRun } from "../src/run-messages.js";
import { migrate, SCHEMA } from "../src/schema.js";

/** Ceiling for hangs only. */
const CEILING_MS = 120_000;

let server: TestPostgres;
let pool: pg.Pool;

beforeAll(async () => {
  server = await startTestPostgres();
  pool = new pg.Pool({ connectionString: server.url });
  await migrate(pool, server.url);
}, CEILING_MS);

afterAll(async () => {
  await pool?.end();
  await server?.dispose();
});

async function runningRun(sessionId: string): Promise<string> {
  const runId = await enqueueRun(pool, sessionId, "go");
  await pool.query(`update ${SCHEMA}.runs set state = 'running' where run_id = $1`, [runId]);
  return runId;
}

it("a message sent before the run ends is handed to it by the end, which leaves the run running", async () => {
  const runId = await runningRun("s-before");
  expect(await sendControl(pool, "s-before", { kind: "interrupt", text: "also the tests" })).toBe(true);
  expect(await sendControl(pool, "s-before", { kind: "steer", text: "and the docs" })).toBe(true);
  expect(await finishRun(pool, runId, "s-before")).toEqual([
    { kind: "interrupt", text: "also the tests" },
    { kind: "steer", text: "and the docs" },
  ]);
  expect((await getRun(pool, runId))?.state).toBe("running");
  // Taken once: the next end finds none and marks the run done, once.
  expect(await finishRun(pool, runId, "s-before")).toEqual([]);
  expect(await getRun(pool, runId)).toMatchObject({ state: "done", completions: 1 });
});

it("a message sent after the run ended is refused, so the node makes it the next run", async () => {
  const runId = await runningRun("s-after");
  expect(await finishRun(pool, runId, "s-after")).toEqual([]);
  expect(await sendControl(pool, "s-after", { kind: "steer", text: "late" })).toBe(false);
  // Aborts and permission answers are for the moment they are sent: recorded either way.
  expect(await sendControl(pool, "s-after", { kind: "abort" })).toBe(true);
});

it("a message being recorded holds the run's end until it is, and the end then takes it", async () => {
  const runId = await runningRun("s-during");
  const node = await pool.connect();
  try {
    await node.query("begin");
    expect(await sendControl(node, "s-during", { kind: "interrupt", text: "mid-end" })).toBe(true);
    const ending = finishRun(pool, runId, "s-during");
    // The end waits on the row lock; the node's commit lets it go on, and it sees the message.
    await waitForLockWaiter();
    await node.query("commit");
    expect(await ending).toEqual([{ kind: "interrupt", text: "mid-end" }]);
    expect((await getRun(pool, runId))?.state).toBe("running");
  } finally {
    node.release();
  }
});

/** Until some backend waits for a lock (the end's `for update` on the run's row). */
async function waitForLockWaiter(): Promise<void> {
  for (;;) {
    const { rows } = await pool.query("select count(*)::int as n from pg_locks where not granted");
    if (rows[0].n > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
