// `--store postgres://…` end to end: the real bundle against a real throwaway PostgreSQL cluster.
// A run's session lands in the database and the sessions commands read it from there; `tern store`
// reports and applies the schema; `tern serve`'s /healthz reports the store; a database that is not
// there stops every command at start with exit 2, and no message shows the URL's password.

import type { ScriptServer } from "@tern/ai/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseSse } from "../../server/test/support/sse.js";
import { startTestPostgres, type TestPostgres } from "../../session/test/support/postgres.js";
import { textReply, toolReply } from "./support/replies.js";
import { startScriptedModel } from "./support/scripted-model.js";
import { JSON_TYPE, startServe } from "./support/serve.js";
import { ensureBuilt, runTern, tempDir, ternEnv } from "./support/tern.js";

const PASSWORD = "pg-Pa55-secret";

let pg: TestPostgres;
beforeAll(async () => {
  await ensureBuilt();
  pg = await startTestPostgres();
});
afterAll(async () => pg?.dispose());

/** Trust auth on loopback ignores the password: a real URL that carries one. */
const storeUrl = (port = pg.port) => `postgres://tern:${PASSWORD}@127.0.0.1:${port}/tern`;

function env(srv?: ScriptServer, extra: NodeJS.ProcessEnv = {}) {
  return ternEnv({
    TERN_HOME: tempDir(),
    TERN_PROVIDER: "llamacpp",
    TERN_MODEL: "test-model",
    ...(srv ? { TERN_BASE_URL: `${srv.baseUrl}/v1` } : {}),
    ...extra,
  });
}

describe("tern with a PostgreSQL session store", () => {
  it("store status and migrate: pending on an empty database (exit 1), applied once, then up to date", async () => {
    const status = await runTern(["store", "status", "--store", storeUrl()], { env: env() });
    expect(status.stdout).toContain("schema version 0 of 1; pending: 1");
    expect(status.code).toBe(1);
    const migrated = await runTern(["store", "migrate", "--store", storeUrl()], { env: env() });
    expect(migrated.stdout).toContain(
      `postgres://tern@127.0.0.1:${pg.port}/tern: schema migrated from version 0 to 1`,
    );
    const again = await runTern(["store", "migrate"], { env: env(undefined, { TERN_STORE: storeUrl() }) });
    expect(again.stdout).toContain("schema already at version 1");
    const done = await runTern(["store", "status", "--json", "--store", storeUrl()], { env: env() });
    expect(JSON.parse(done.stdout)).toMatchObject({ current: 1, latest: 1, pending: [] });
    expect(done.code).toBe(0);
    for (const result of [status, migrated, again, done])
      expect(result.stdout + result.stderr).not.toContain(PASSWORD);
    expect((await runTern(["store", "status"], { env: env() })).code).toBe(2); // no store named
  });

  it("a run writes its session to the database; sessions ls, show and export read it from there", async () => {
    const server = await startScriptedModel([
      toolReply([{ name: "bash", args: { command: "echo from-the-tool" } }]),
      textReply("All done."),
    ]);
    const work = tempDir();
    const runEnv = env(server, { TERN_STORE: storeUrl() });
    const run = await runTern(["run", "--mode", "bypass", "--sandbox", "off", "say hi"], {
      env: runEnv,
      cwd: work,
    });
    expect(run.stderr).not.toMatch(/tern: /);
    expect(run.code).toBe(0);
    const listed = await runTern(["sessions", "ls", "--json"], { env: runEnv, cwd: work });
    const sessions = JSON.parse(listed.stdout) as { id: string; title: string; messageCount: number }[];
    expect(sessions).toHaveLength(1);
    expect(sessions[0]).toMatchObject({ title: "say hi", messageCount: 4 });
    const id = sessions[0]!.id;
    const shown = await runTern(["sessions", "show", id.slice(0, 8)], { env: runEnv, cwd: work });
    expect(shown.stdout).toContain("from-the-tool");
    const exported = await runTern(["sessions", "export", id, "--format", "jsonl"], {
      env: runEnv,
      cwd: work,
    });
    const lines = exported.stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines[0]).toMatchObject({ type: "session", id });
    expect(lines.filter((line) => line.type === "message")).toHaveLength(4);
    // The file store under TERN_HOME saw nothing.
    const files = await runTern(["sessions", "ls", "--all", "--store", "file"], { env: runEnv, cwd: work });
    expect(files.stdout).toContain("no sessions yet");
  });

  it("serve runs sessions in the database (a cluster node); /healthz reports the store: ok with its schema version, 503 once the database is gone", async () => {
    const server = await startScriptedModel([textReply("Served from PostgreSQL.")]);
    const { base, proc } = await startServe(
      [
        "--port",
        "0",
        "--store",
        storeUrl(),
        "--lease",
        "3",
        "--base-url",
        `${server.baseUrl}/v1`,
        "--model",
        "m",
        "--cwd",
        tempDir(),
      ],
      { TERN_HOME: tempDir() },
    );
    const healthy = await fetch(`${base}/healthz`);
    expect(healthy.status).toBe(200);
    expect(await healthy.json()).toMatchObject({
      ok: true,
      store: { kind: "postgres", ok: true, schemaVersion: 1 },
    });

    const post = (path: string, body: unknown) =>
      fetch(`${base}${path}`, { method: "POST", headers: JSON_TYPE, body: JSON.stringify(body) });
    const created = await post("/api/sessions", {});
    expect(created.status).toBe(201);
    const id = ((await created.json()) as { session: { id: string } }).session.id;
    // A cluster node enqueues the run, its own worker takes it, and the POST streams it to the end.
    const sent = await post(`/api/sessions/${id}/messages`, { content: "hello" });
    expect(sent.status).toBe(200);
    const frames = parseSse(await sent.text());
    expect(frames.at(-1)).toMatchObject({ event: "done", data: { answer: "Served from PostgreSQL." } });
    // Another process reads the session from the database.
    const shown = await runTern(["sessions", "show", id, "--store", storeUrl()], { env: env() });
    expect(shown.stdout).toContain("Served from PostgreSQL.");
    await pg.stop();
    try {
      const down = await fetch(`${base}/healthz`);
      expect(down.status).toBe(503);
      const body = (await down.json()) as { ok: boolean; store: { ok: boolean; error: string } };
      expect(body).toMatchObject({ ok: false, store: { kind: "postgres", ok: false } });
      expect(JSON.stringify(body) + proc.stderr).not.toContain(PASSWORD);
    } finally {
      await pg.start();
    }
    // Stopped while the database is up: closing its open session frees the session's lease.
    proc.child.kill("SIGTERM");
    expect((await proc.done).code).toBe(0);
  });

  it("a database that is not there: every command stops at start with exit 2, naming it without the password", async () => {
    await pg.stop();
    try {
      const url = storeUrl();
      for (const args of [
        ["run", "--store", url, "hi"],
        ["sessions", "ls", "--store", url],
        ["store", "status", "--store", url],
        ["serve", "--port", "0", "--store", url, "--base-url", "http://127.0.0.1:9/v1", "--model", "m"],
      ]) {
        const result = await runTern(args, { env: env() });
        expect(result.code, args.join(" ")).toBe(2);
        expect(result.stderr).toContain(
          `cannot reach the session store at postgres://tern@127.0.0.1:${pg.port}/tern`,
        );
        expect(result.stdout + result.stderr).not.toContain(PASSWORD);
      }
      const viaEnv = await runTern(["run", "hi"], { env: env(undefined, { TERN_STORE: url }) });
      expect(viaEnv.code).toBe(2);
      expect(viaEnv.stderr).not.toContain(PASSWORD);
    } finally {
      await pg.start();
    }
    const wrong = await runTern(["run", "--store", `mysql://root:${PASSWORD}@db/x`, "hi"], { env: env() });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("--store must be a postgres://user@host:port/db URL");
    expect(wrong.stderr).not.toContain(PASSWORD);
  });
});
