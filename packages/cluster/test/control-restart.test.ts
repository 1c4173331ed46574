// Across nodes: a client on one serve node steers and aborts a run executing on a worker process
// (the control channel through PostgreSQL), and a run survives the database restarting under it
// (it pauses and continues; the other node's stream still shows every event exactly once).
import type { Message } from "@tern/ai";
import { FileSessionStore } from "@tern/session";
import { afterAll, beforeAll, expect, it } from "vitest";
import { parseSse } from "../../server/test/support/sse.js";
import { startTestCluster, type TestCluster } from "./support/cluster.js";
import { controlsOf, expectedFrames, post, runState, startRun, until, watch } from "./support/nodes.js";

const LEASE_MS = 5000;
const MODEL_DELAY_MS = 20;
/** Ceiling for hangs only. */
const CEILING_MS = 180_000;

let cluster: TestCluster;
let fronts: { url: string }[];
const stop = new AbortController();

beforeAll(async () => {
  cluster = await startTestCluster({ modelDelayMs: MODEL_DELAY_MS, leaseMs: LEASE_MS });
  fronts = await Promise.all([cluster.nodes.spawn("front"), cluster.nodes.spawn("front")]);
  await cluster.nodes.spawn("worker");
}, CEILING_MS);

afterAll(async () => {
  stop.abort();
  await cluster?.dispose();
});

/** A session with a run submitted on node A, held at its first model call. */
async function heldRun(): Promise<{ sessionId: string; runId: string; seen: ReturnType<typeof watch> }> {
  const [a, b] = fronts as [{ url: string }, { url: string }];
  const { session } = (await post(`${a.url}/api/sessions`)) as { session: { id: string } };
  const seen = watch(b.url, session.id, stop.signal);
  cluster.model.hold();
  const before = cluster.model.requests;
  const { runId } = await startRun(a.url, cluster.pg.url, session.id, "go");
  await until(() => cluster.model.requests > before);
  return { sessionId: session.id, runId, seen };
}

async function messagesOf(sessionId: string): Promise<Message[]> {
  const session = await new FileSessionStore({ home: cluster.home }).load(sessionId);
  return session.buildContext().messages as Message[];
}

it(
  "an interrupt sent to node B reaches the run on the worker",
  async () => {
    const { sessionId, runId } = await heldRun();
    await post(`${fronts[1]!.url}/api/sessions/${sessionId}/interrupt`, { content: "also check the tests" });
    // Recorded: from here the run takes it, at its next turn or as a follow-up as it ends.
    await until(async () => (await controlsOf(cluster.pg.url, sessionId)).includes("interrupt"));
    cluster.model.release();
    await until(async () => (await runState(fronts[0]!.url, runId)) === "done");
    const users = (await messagesOf(sessionId)).filter((m) => m.role === "user");
    expect(users.map((m) => (typeof m.content === "string" ? m.content : ""))).toContain(
      "also check the tests",
    );
  },
  CEILING_MS,
);

it(
  "an abort sent to node B stops the run on the worker, which completes once as aborted",
  async () => {
    const { sessionId, runId, seen } = await heldRun();
    // The control reaches the worker only while it runs the session: it does once the call is out.
    await post(`${fronts[1]!.url}/api/sessions/${sessionId}/abort`);
    await until(() => seen.types.includes("done"));
    cluster.model.release();
    await until(async () => (await runState(fronts[0]!.url, runId)) === "done");
    const session = await new FileSessionStore({ home: cluster.home }).load(sessionId);
    const end = session.storedEvents().find((e) => e.event.type === "agent_end");
    expect(end?.event).toMatchObject({ stopReason: "aborted" });
  },
  CEILING_MS,
);

it(
  "a run continues after the database restarts under it, and node B streams every event once",
  async () => {
    const { sessionId, runId, seen } = await heldRun();
    await cluster.pg.restart();
    cluster.model.release();
    await until(async () => (await runState(fronts[0]!.url, runId).catch(() => "unknown")) === "done");
    const session = await new FileSessionStore({ home: cluster.home }).load(sessionId);
    const expected = expectedFrames(session.eventsAfter(0));
    await until(() => seen.ids.length >= expected.length);
    expect(seen.ids).toEqual(expected.map((frame) => frame.id));
    expect(seen.types).toEqual(expected.map((frame) => frame.event));
    expect((await messagesOf(sessionId)).at(-1)?.role).toBe("assistant");
    // The worker is still there after the restart: it takes the next run.
    const next = await startRun(fronts[1]!.url, cluster.pg.url, sessionId, "again");
    await until(async () => (await runState(fronts[1]!.url, next.runId)) === "done");
  },
  CEILING_MS,
);

it(
  "a run whose whole last turn happens while the database is down completes once it is back",
  async () => {
    const { sessionId, runId, seen } = await heldRun();
    await cluster.pg.stop();
    const health = await fetch(`${fronts[0]!.url}/healthz`);
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ ok: false, database: "unreachable" });
    cluster.model.release();
    // The worker goes on (the model and the session log need no database) and then waits.
    const store = new FileSessionStore({ home: cluster.home });
    await until(async () =>
      (await store.load(sessionId)).storedEvents().some((e) => e.event.type === "agent_end"),
    );
    await cluster.pg.start();
    await until(async () => (await runState(fronts[0]!.url, runId).catch(() => "unknown")) === "done");
    const expected = expectedFrames((await store.load(sessionId)).eventsAfter(0));
    await until(() => seen.ids.length >= expected.length);
    expect(seen.ids).toEqual(expected.map((frame) => frame.id));
    expect(seen.types).toEqual(expected.map((frame) => frame.event));
  },
  CEILING_MS,
);

it(
  "Last-Event-ID replays the rest of a session on either node",
  async () => {
    const [a, b] = fronts as [{ url: string }, { url: string }];
    const { session } = (await post(`${a.url}/api/sessions`)) as { session: { id: string } };
    const { runId } = await startRun(a.url, cluster.pg.url, session.id, "go");
    await until(async () => (await runState(a.url, runId)) === "done");
    const events = (await new FileSessionStore({ home: cluster.home }).load(session.id)).eventsAfter(0);
    const from = events[Math.floor(events.length / 2)]!.seq;
    // The frames after frame `from`: those of later events, and `from.n` of the same one.
    const rest = expectedFrames(events).filter((frame) => Number.parseFloat(frame.id) > from);
    expect(rest.length).toBeGreaterThan(0);
    for (const node of [a, b]) {
      // The run is over: the node replays the rest and ends the stream.
      const res = await fetch(`${node.url}/api/sessions/${session.id}/events`, {
        headers: { "last-event-id": String(from) },
      });
      const frames = parseSse(await res.text());
      expect(frames.map((frame) => frame.id)).toEqual(rest.map((frame) => frame.id));
      expect(frames.map((frame) => frame.event)).toEqual(rest.map((frame) => frame.event));
    }
  },
  CEILING_MS,
);
