// Exactly-once run ends after a takeover. For every step between "the final answer is saved" and
// "its events are mirrored", a worker process is SIGKILLed at exactly that step (an injected
// point: node-child.ts, TERN_CLUSTER_TEST_KILL; the PostgreSQL store commits each line on its own
// there, so each point is one exact durable state, no timing involved). Another worker then takes
// every run over. Each run must end on the events table exactly once (one answer, one turn_end
// per turn, one agent_end, last), with the table equal to the session's own log, seq for seq.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Message } from "@tern/ai";
import { PgSessionStore } from "@tern/store-pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { enqueueRun } from "../src/index.js";
import { getRun } from "../src/queue.js";
import { SCHEMA } from "../src/schema.js";
import { startTestCluster, type TestCluster } from "./support/cluster.js";
import { until } from "./support/nodes.js";

const POINTS = ["answer", "message_start", "message_end", "turn_end", "agent_end", "mirrored"] as const;
/** Short, so the finisher takes the killed runs over soon; the heartbeat is a quarter of it. */
const LEASE_MS = 2000;
/** Ceiling for hangs only: seven worker processes start one after another on a loaded machine. */
const CEILING_MS = 400_000;

let cluster: TestCluster;
let store: PgSessionStore;

beforeAll(async () => {
  cluster = await startTestCluster({ modelDelayMs: 20, leaseMs: LEASE_MS, store: "pg", concurrency: 1 });
  store = await PgSessionStore.connect({ url: cluster.pg.url, leaseMs: LEASE_MS });
}, CEILING_MS);

afterAll(async () => {
  await store?.close();
  await cluster?.dispose();
});

interface EventRow {
  seq: number;
  event: { type: string; turn?: number; message?: Message };
}

it(
  "a run killed at any step between its saved answer and its mirrored events ends once on the stream",
  async () => {
    const runs: { point: string; sessionId: string; runId: string }[] = [];
    for (const point of POINTS) {
      const session = await store.create({ cwd: cluster.home });
      const sessionId = session.id;
      await session.close();
      const { child } = await cluster.nodes.spawn("worker", {
        TERN_CLUSTER_TEST_KILL: `${point}:${sessionId}`,
      });
      const died = new Promise<string | null>((resolve) =>
        child.once("exit", (_code, signal) => resolve(signal)),
      );
      runs.push({
        point,
        sessionId,
        runId: await enqueueRun(store.pool, sessionId, `run killed at ${point}`),
      });
      expect(await died, `the worker killed at ${point}`).toBe("SIGKILL");
    }

    await cluster.nodes.spawn("worker");
    for (const run of runs) await until(async () => (await getRun(store.pool, run.runId))?.state === "done");

    const executions = readFileSync(join(cluster.home, "executions.log"), "utf8").trim().split("\n");
    expect(new Set(executions).size, "no tool call executed twice").toBe(executions.length);
    for (const { point, sessionId, runId } of runs) {
      const record = await getRun(store.pool, runId);
      expect(record, point).toMatchObject({ state: "done", completions: 1, takeovers: 1 });
      const { rows } = await store.pool.query<EventRow>(
        `select seq, event from ${SCHEMA}.events where session_id = $1 order by seq`,
        [sessionId],
      );
      const log = (await store.load(sessionId)).eventsAfter(0);
      expect(
        rows.map((row) => row.seq),
        `${point}: every event of the log is on the stream once`,
      ).toEqual(log.map((entry) => entry.seq));
      expect(
        rows.map((row) => row.event),
        `${point}: the stream is the log`,
      ).toEqual(log.map((entry) => JSON.parse(JSON.stringify(entry.event))));

      const types = rows.map((row) => row.event.type);
      expect(
        types.filter((type) => type === "agent_end"),
        `${point}: one end`,
      ).toHaveLength(1);
      expect(types.at(-1), `${point}: the end comes last`).toBe("agent_end");
      const answers = rows.filter((row) => isAnswer(row.event.message));
      expect(
        answers.map((row) => row.event.type),
        `${point}: the answer is told once, then its turn ends`,
      ).toEqual(["message_start", "message_end", "turn_end"]);
      const turns = (type: string) =>
        rows.filter((row) => row.event.type === type).map((row) => row.event.turn);
      expect(turns("turn_end").sort(), `${point}: one turn_end per turn`).toEqual(turns("turn_start").sort());
      expect(new Set(turns("turn_end")).size, `${point}: no turn ends twice`).toBe(turns("turn_end").length);
    }
  },
  CEILING_MS,
);

function isAnswer(message: Message | undefined): boolean {
  return message?.role === "assistant" && !message.content.some((part) => part.type === "toolCall");
}
