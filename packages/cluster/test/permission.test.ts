// A permission question asked by a run on a worker process shows up on the other serve node's
// stream, and the answer given there reaches the worker (the control channel): the call runs once.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Message } from "@tern/ai";
import { FileSessionStore } from "@tern/session";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestPostgres, type TestPostgres } from "../../session/test/support/postgres.js";
import { type ModelServer, startModelServer } from "./support/model-server.js";
import { Nodes, post, runState, until, watch } from "./support/nodes.js";

const LEASE_MS = 5000;
/** Ceiling for hangs only. */
const CEILING_MS = 180_000;

let pg: TestPostgres;
let model: ModelServer;
let home: string;
let nodes: Nodes;
const stop = new AbortController();

beforeAll(async () => {
  pg = await startTestPostgres();
  model = await startModelServer(0);
  home = mkdtempSync(join(tmpdir(), "tern-cluster-"));
  nodes = new Nodes({ pgUrl: pg.url, home, modelUrl: model.baseUrl, leaseMs: LEASE_MS, ask: true });
}, CEILING_MS);

afterAll(async () => {
  stop.abort();
  nodes?.killAll();
  await model?.close();
  await pg?.dispose();
  if (home) rmSync(home, { recursive: true, force: true });
});

it(
  "a question from the worker is answered through the other node",
  async () => {
    const [a, b] = await Promise.all([nodes.spawn("front"), nodes.spawn("front"), nodes.spawn("worker")]);
    const { session } = (await post(`${a.url}/api/sessions`)) as { session: { id: string } };
    const seen = watch(b.url, session.id, stop.signal);
    const { run_id } = (await post(`${a.url}/api/sessions/${session.id}/messages`, { content: "go" })) as {
      run_id: string;
    };
    await until(() => seen.types.includes("permission_request"));
    const question = seen.events.find((event) => event.type === "permission_request") as {
      requestId: string;
    };
    await post(`${b.url}/api/sessions/${session.id}/permissions/${question.requestId}`, {
      decision: "allow_once",
    });
    await until(async () => (await runState(a.url, run_id)) === "done");
    const messages = (await new FileSessionStore({ home }).load(session.id)).buildContext()
      .messages as Message[];
    const result = messages.find((m) => m.role === "toolResult");
    expect(result?.content).toEqual([{ type: "text", text: "noted" }]);
    expect(readFileSync(join(home, "executions.log"), "utf8").trim().split("\n")).toHaveLength(1);
  },
  CEILING_MS,
);

it("a bad decision is the client's error, answered on the node", async () => {
  const res = await fetch(`${(await nodes.spawn("front")).url}/api/sessions/s1/permissions/r1`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ decision: "maybe" }),
  });
  expect(res.status).toBe(400);
});
