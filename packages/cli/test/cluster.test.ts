// `tern worker` and `tern serve --store postgres://…` as real processes on a real PostgreSQL: a
// serve node that only serves (--no-worker) enqueues, a worker runs, the client sees the answer
// streamed from the POST as on any `tern serve`, and the official Copilot SDK works against the
// node's JSON-RPC port; bad --store values and an unreachable database are exit 2, and the
// password in the URL is never printed.
import { CopilotClient, RuntimeConnection } from "@github/copilot-sdk";
import { type ScriptServer, serveScript } from "@tern/ai/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { parseSse } from "../../server/test/support/sse.js";
import { sharedPostgres } from "../../session/test/support/shared-postgres.js";
import { textReply } from "./support/replies.js";
import { JSON_TYPE, openSession, startServe } from "./support/serve.js";
import { runTern, spawnTern, type TernProcess, tempDir, ternEnv } from "./support/tern.js";

/** Ceiling for hangs only. */
const CEILING_MS = 180_000;

/** A database of this file's own on the run's shared PostgreSQL server. */
let store: string;
let model: ScriptServer;
let worker: TernProcess | undefined;

beforeAll(async () => {
  store = await sharedPostgres();
  model = await serveScript([textReply("Hello from a worker."), textReply("Hello, SDK.")]);
}, CEILING_MS);

afterAll(async () => {
  worker?.child.kill("SIGKILL");
  await model?.close();
});

it("bad --store values are usage errors (exit 2)", async () => {
  const home = tempDir();
  const missing = await runTern(["worker", "--home", home], { env: ternEnv() });
  expect(missing.code).toBe(2);
  expect(missing.stderr).toContain("tern worker needs --store postgres://");
  const other = await runTern(["worker", "--store", "mysql://x", "--home", home], { env: ternEnv() });
  expect(other.code).toBe(2);
  expect(other.stderr).toContain('--store must be a postgres://user@host:port/db URL or "file"');
});

it("an unreachable database at start is exit 2, with the password masked", async () => {
  const home = tempDir();
  const result = await runTern(
    [
      ...["worker", "--store", "postgres://tern:s3cret-pw@127.0.0.1:1/tern", "--home", home, "--cwd", home],
      ...["--base-url", model.providerUrl, "--model", "scripted"],
    ],
    { env: ternEnv() },
  );
  expect(result.code).toBe(2);
  expect(result.stderr).toContain("cannot reach the session store at postgres://tern@127.0.0.1:1/tern");
  expect(result.stdout + result.stderr).not.toContain("s3cret-pw");
});

it(
  "serve --no-worker enqueues, a worker runs it, the node streams the answer; the Copilot SDK works on it",
  async () => {
    const home = tempDir();
    const common = [
      "--store",
      store,
      "--home",
      home,
      "--cwd",
      home,
      "--base-url",
      model.providerUrl,
      "--model",
      "scripted",
    ];
    const served = await startServe(["--port", "0", "--rpc-port", "0", "--no-worker", ...common]);
    worker = spawnTern(["worker", ...common], { env: ternEnv() });
    await worker.waitFor(/worker taking runs from/, "stdout");
    const health = await fetch(`${served.base}/healthz`);
    expect(await health.json()).toMatchObject({
      ok: true,
      store: { kind: "postgres", ok: true, schemaVersion: 1 },
      database: "reachable",
    });
    const id = await openSession(served.base);
    const posted = await fetch(`${served.base}/api/sessions/${id}/messages`, {
      method: "POST",
      headers: JSON_TYPE,
      body: JSON.stringify({ content: "hi" }),
    });
    // The same answer as a plain `tern serve`: the run, streamed as FIM frames, ending with done.
    expect(posted.status).toBe(200);
    const frames = parseSse(await posted.text());
    expect(frames.at(-1)).toMatchObject({ event: "done", data: { answer: "Hello from a worker." } });

    const client = new CopilotClient({ connection: RuntimeConnection.forUri(`127.0.0.1:${served.rpcPort}`) });
    await client.start();
    try {
      const session = await client.createSession({ onPermissionRequest: () => ({ kind: "approve-once" }) });
      const reply = await session.sendAndWait({ prompt: "hello?" }, CEILING_MS);
      expect(reply?.data.content).toBe("Hello, SDK.");
    } finally {
      await client.stop();
    }
  },
  CEILING_MS,
);
