// Requests during a database outage fail fast and say so: a real @tern/server (HTTP and JSON-RPC
// over TCP) whose engine keeps sessions in the PostgreSQL store, with the real PostgreSQL stopped.
// HTTP answers 503 with Retry-After and {error: {code: "unavailable"}}, JSON-RPC an error reply
// with code -32004; after one such answer the store refuses at once for its "known down" window
// (the clock is injected: the window is checked by moving it, not by waiting), and once the
// database is back and the window over, requests succeed again. How fast the 503 comes is a
// figure for the docs, not an assertion here.

import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UNKNOWN_MODEL_DEFAULTS } from "@tern/ai";
import { encodeFrame, FrameDecoder, modelCatalog, type Served, serve } from "@tern/server";
import { DEFAULT_DOWN_FOR_MS, PgSessionStore } from "@tern/store-pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestPostgres, type TestPostgres } from "../../session/test/support/postgres.js";

const MODEL = {
  id: "unused",
  name: "unused",
  api: "openai-completions",
  provider: "local",
  baseUrl: "http://127.0.0.1:9/v1", // never called: no run starts here
  ...UNKNOWN_MODEL_DEFAULTS,
} as const;

let pg: TestPostgres;
let store: PgSessionStore;
let served: Served;
let home: string;
let now = 1_000_000;

beforeAll(async () => {
  pg = await startTestPostgres();
  home = mkdtempSync(join(tmpdir(), "tern-unavailable-"));
  store = await PgSessionStore.connect({ url: pg.url, clock: () => now });
  served = await serve({ engine: { models: modelCatalog([MODEL]), store, cwd: home }, port: 0, rpcPort: 0 });
}, 120_000);

afterAll(async () => {
  await served?.close();
  await store?.close().catch(() => {});
  await pg?.dispose();
  rmSync(home, { recursive: true, force: true });
});

const createSession = () =>
  fetch(`${served.http!.url}/api/sessions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "{}",
  });

it("answers 503 with Retry-After (HTTP) and -32004 (JSON-RPC) while the database is down, then recovers", async () => {
  expect((await createSession()).status).toBe(201);

  await pg.stop();
  try {
    const refused = await createSession();
    expect(refused.status).toBe(503);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ error: { code: "unavailable" } });
    const listed = await fetch(`${served.http!.url}/api/sessions`);
    expect(listed.status).toBe(503);
    expect(listed.headers.get("retry-after")).not.toBeNull();

    const reply = await rpcCall(served.rpc!.port!, "session.create", {});
    expect(reply.error).toMatchObject({ code: -32004, data: { code: "unavailable" } });
  } finally {
    await pg.start();
  }

  // Back, but still inside the known-down window: refused without trying.
  expect((await createSession()).status).toBe(503);
  now += DEFAULT_DOWN_FOR_MS;
  expect((await createSession()).status).toBe(201);
}, 120_000);

/** One JSON-RPC request over a fresh TCP connection, framed as the Copilot protocol frames it. */
function rpcCall(
  port: number,
  method: string,
  params: unknown,
): Promise<{ error?: unknown; result?: unknown }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const decoder = new FrameDecoder();
    socket.on("error", reject);
    socket.on("data", (chunk: Buffer) => {
      for (const frame of decoder.push(chunk)) {
        if (frame.kind !== "message") continue;
        const message = JSON.parse(frame.text) as { id?: unknown; error?: unknown; result?: unknown };
        if (message.id !== 1) continue;
        socket.end();
        resolve(message);
      }
    });
    socket.write(encodeFrame({ jsonrpc: "2.0", id: 1, method, params }));
  });
}
