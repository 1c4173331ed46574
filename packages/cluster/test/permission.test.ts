// A permission question asked by a run on a worker process shows up on the other serve node's
// stream, and the answer given there reaches the worker (the control channel): the call runs once.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Message } from "@tern/ai";
import { FileSessionStore } from "@tern/session";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestCluster, type TestCluster } from "./support/cluster.js";
import { post, runState, startRun, until, watch } from "./support/nodes.js";

const LEASE_MS = 5000;
/** Ceiling for hangs only. */
const CEILING_MS = 180_000;

let cluster: TestCluster;
const stop = new AbortController();

beforeAll(async () => {
  cluster = await startTestCluster({ modelDelayMs: 0, leaseMs: LEASE_MS, ask: true });
}, CEILING_MS);

afterAll(async () => {
  stop.abort();
  await cluster?.dispose();
});

it(
  "a question from the worker is answered through the other node",
  async () => {
    const [a, b] = await Promise.all([
      cluster.nodes.spawn("front"),
      cluster.nodes.spawn("front"),
      cluster.nodes.spawn("worker"),
    ]);
    const { session } = (await post(`${a.url}/api/sessions`)) as { session: { id: string } };
    const seen = watch(b.url, session.id, stop.signal);
    const { runId: run_id } = await startRun(a.url, cluster.pg.url, session.id, "go");
    await until(() => seen.frames.some((frame) => frame.event === "permission"));
    const question = seen.frames.find((frame) => frame.event === "permission")!.data as { id: string };
    expect(question).toMatchObject({ status: "asked", tool: "note" });
    await post(`${b.url}/api/sessions/${session.id}/permissions/${question.id}`, {
      decision: "allow_once",
    });
    await until(async () => (await runState(a.url, run_id)) === "done");
    const messages = (await new FileSessionStore({ home: cluster.home }).load(session.id)).buildContext()
      .messages as Message[];
    const result = messages.find((m) => m.role === "toolResult");
    expect(result?.content).toEqual([{ type: "text", text: "noted" }]);
    expect(readFileSync(join(cluster.home, "executions.log"), "utf8").trim().split("\n")).toHaveLength(1);
  },
  CEILING_MS,
);

it("bad input is the client's error, answered by the node, which goes on", async () => {
  const { url } = await cluster.nodes.spawn("front");
  const send = (path: string, body: string, type = "application/json", method = "POST") =>
    fetch(`${url}${path}`, { method, headers: { "content-type": type }, body });
  const { session } = (await post(`${url}/api/sessions`)) as { session: { id: string } };
  const cases: [Promise<Response>, number, string][] = [
    [send(`/api/sessions/${session.id}/permissions/r1`, '{"decision":"maybe"}'), 400, "invalid"],
    [send(`/api/sessions/${session.id}/messages`, '{"content":" "}'), 400, "invalid"],
    [send(`/api/sessions/${session.id}/messages`, "{not json"), 400, "bad_json"],
    [send(`/api/sessions/${session.id}/messages`, "hi", "text/plain"), 415, "unsupported_media_type"],
    [send("/api/sessions/no-such-session/messages", '{"content":"hi"}'), 404, "not_found"],
    [send("/api/sessions/..%2Fetc/messages", '{"content":"hi"}'), 400, "invalid"],
    [fetch(`${url}/api/runs/no-such-run`), 404, "not_found"],
    [
      fetch(`${url}/api/sessions/${session.id}/events`, { headers: { "last-event-id": "x1" } }),
      400,
      "invalid",
    ],
    [fetch(`${url}/api/sessions/${session.id}/messages`), 405, "method_not_allowed"],
  ];
  for (const [response, status, code] of cases) {
    const res = await response;
    expect(res.status).toBe(status);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe(code);
  }
  expect((await fetch(`${url}/healthz`)).status).toBe(200);
});
