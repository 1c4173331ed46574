import type { AgentTool } from "@tern/agent";
import { createFaux, fauxToolCall } from "@tern/ai/testing";
import { createSessionAgent, SessionError } from "@tern/session";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyLeaks } from "../../ai/test/support/key-leaks.js";
import { transcriptProblems } from "../../session/test/support/agent.js";
import { startTestPostgres, type TestPostgres } from "../../session/test/support/postgres.js";
import { isDatabaseUnavailable, PgStoreError } from "../src/errors.js";
import { PgSessionStore } from "../src/pg-store.js";
import { describeTarget, redactPasswords, redactUrl } from "../src/redact.js";

const PASSWORD = "s3cret-Pa55word";

let cluster: TestPostgres;
beforeAll(async () => {
  cluster = await startTestPostgres();
});
afterAll(async () => cluster?.dispose());

/** The cluster trusts loopback, so a password in the URL is accepted and ignored: a real URL with one. */
function urlWithPassword(port = cluster.port): string {
  return `postgres://tern:${PASSWORD}@127.0.0.1:${port}/tern`;
}

describe("a database that is not there", () => {
  it("at start: a clear 'unreachable' error naming the target without its password", async () => {
    await cluster.stop();
    try {
      const logged: string[] = [];
      const error = await PgSessionStore.connect({ url: urlWithPassword(), log: (m) => logged.push(m) }).then(
        () => undefined,
        (e: unknown) => e as PgStoreError,
      );
      expect(error).toBeInstanceOf(PgStoreError);
      expect(error?.code).toBe("unreachable");
      expect(error?.message).toContain(
        `cannot reach the session store at postgres://tern@127.0.0.1:${cluster.port}/tern`,
      );
      expect(`${error?.message}${error?.stack}${logged.join("\n")}`).not.toContain(PASSWORD);
    } finally {
      await cluster.start();
    }
  });

  it("mid-run: appends wait out a database restart, and the run finishes with nothing lost or doubled", async () => {
    const logged: string[] = [];
    let restarting: Promise<void> | undefined;
    /** Set once a stop has completed, cleared when the restart begins: one start per stop. */
    let down = false;
    const store = await PgSessionStore.connect({
      url: urlWithPassword(),
      log: (message) => {
        logged.push(message);
        // The writer retries a write while the database is down: bring it back.
        if (down && /appending to the session.*retry/.test(message)) {
          down = false;
          restarting = cluster.start();
        }
      },
    });
    try {
      const session = await store.create({ cwd: "/restart" });
      const faux = createFaux({
        replies: [
          { content: [fauxToolCall("stop_db", {}, "c1")] },
          { content: [fauxToolCall("stop_db", {}, "c2")] },
          "done",
        ],
      });
      // The tool takes the database down mid-run; the lines of the rest of the turn queue up.
      const stopDb = {
        name: "stop_db",
        description: "stops the database",
        parameters: { type: "object", properties: {} },
        async execute() {
          await restarting;
          await cluster.stop();
          down = true;
          return "stopped";
        },
      };
      const { agent } = createSessionAgent(session, { model: faux.model, tools: [stopDb] });
      const run = await agent.prompt("restart it twice");
      expect(run.stopReason).toBe("stop");
      await restarting;
      await session.close();
      expect(logged.some((m) => /connection lost.*retry/.test(m))).toBe(true);

      const loaded = await store.load(session.id);
      const messages = loaded.buildContext().messages;
      expect(messages.map((m) => m.role)).toEqual([
        "user",
        "assistant",
        "toolResult",
        "assistant",
        "toolResult",
        "assistant",
      ]);
      expect(transcriptProblems(messages)).toEqual([]);
      const seqs = loaded.eventsAfter(0).map((e) => e.seq);
      expect(seqs).toEqual(seqs.map((_, i) => i + 1));
      const lines = await store.pool.query(
        "SELECT seq FROM tern_session_lines WHERE session_id = $1 ORDER BY seq",
        [session.id],
      );
      expect(lines.rows.map((row) => row.seq)).toEqual(lines.rows.map((_, i) => i + 1));
      expect(logged.join("\n")).not.toContain(PASSWORD);
    } finally {
      await restarting;
      await store.close();
    }
  });
});

describe("a connection lost while checked out", () => {
  // pg emits "error" on a client whose connection ends, idle or not; with no listener that is an
  // uncaught exception (vitest fails the run on it), which is how a restart killed a cluster worker.
  it("is logged, the holder's statement rejects, and the process and the pool carry on", async () => {
    const logged: string[] = [];
    const store = await PgSessionStore.connect({ url: urlWithPassword(), log: (m) => logged.push(m) });
    try {
      const held = await store.pool.connect();
      const { rows } = await held.query<{ pid: number }>("select pg_backend_pid() as pid");
      // Not events.once: it rejects on the very "error" event this test is about.
      const ended = new Promise((resolve) => held.once("end", resolve));
      await store.pool.query("select pg_terminate_backend($1)", [rows[0]?.pid]);
      await ended;
      const failure = await held.query("select 1").then(
        () => undefined,
        (error: unknown) => error,
      );
      held.release(true);
      expect(isDatabaseUnavailable(failure) || String(failure).includes("not queryable")).toBe(true);
      expect(logged.join("\n")).toMatch(/session store: connection lost: /);
      expect((await store.pool.query("select 2 as two")).rows[0]).toEqual({ two: 2 });
    } finally {
      await store.close();
    }
  });
});

describe("passwords in messages", () => {
  it("are replaced in URLs, key=value strings and PGPASSWORD's value", () => {
    expect(redactPasswords(`failed: postgres://u:${PASSWORD}@h:5432/db?x=1`)).toBe(
      "failed: postgres://u:***@h:5432/db?x=1",
    );
    expect(redactPasswords(`host=h password=${PASSWORD} user=u`)).toBe("host=h password=*** user=u");
    expect(redactPasswords(`password='${PASSWORD} x'`)).toBe("password=***");
    expect(redactPasswords(`auth failed for ${PASSWORD}`, { PGPASSWORD: PASSWORD })).toBe(
      "auth failed for ***",
    );
    expect(describeTarget(`postgresql://u:${PASSWORD}@h:5/db?password=${PASSWORD}`)).toBe(
      "postgresql://u@h:5/db",
    );
    expect(describeTarget(undefined, { PGHOST: "db", PGUSER: "u", PGPASSWORD: PASSWORD })).not.toContain(
      PASSWORD,
    );
  });
});

describe("keys in stored lines", () => {
  it("no row holds a registered key, raw, percent-encoded, base64 or base64url", async () => {
    const key = "tern-test-key-Pg55/Row+Kx2";
    const printed = [
      `raw ${key}`,
      `pct ${encodeURIComponent(key)}`,
      ...["", "x", "xy"].map((pad) => Buffer.from(pad + key).toString("base64")),
      Buffer.from(`z${key}`).toString("base64url"),
    ].join("\n");
    const faux = createFaux({
      replies: [{ content: [fauxToolCall("print", {}, "p1")] }, `the key: ${key}`],
    });
    const store = await PgSessionStore.connect({ url: cluster.url });
    try {
      const session = await store.create({ cwd: "/keys" });
      session.addSecrets([key]);
      const print: AgentTool<Record<string, never>> = {
        name: "print",
        description: "Prints the key in several encodings",
        parameters: { type: "object", properties: {} },
        execute: async () => printed,
      };
      const { agent } = createSessionAgent(session, { model: faux.model, tools: [print] });
      await agent.prompt("print the key");
      await session.close();
      const rows = await store.pool.query("SELECT line FROM tern_session_lines WHERE session_id = $1", [
        session.id,
      ]);
      const stored = rows.rows.map((row) => row.line as string).join("\n");
      expect(stored).toContain("raw [REDACTED]");
      expect(keyLeaks(stored, key)).toEqual([]);
    } finally {
      await store.close();
    }
  });
});

describe("redactUrl", () => {
  it("hides the user-info password and secret query parameters, and keeps the rest", () => {
    expect(redactUrl(`postgres://u:${PASSWORD}@h:5432/db?sslmode=require`)).toBe(
      "postgres://u:***@h:5432/db?sslmode=require",
    );
    const shown = redactUrl(
      `postgres://u@h/db?password=${PASSWORD}&sslpassword=${PASSWORD}&application_name=x`,
    );
    expect(shown).toBe("postgres://u@h/db?password=***&sslpassword=***&application_name=x");
    expect(redactUrl(`postgres://u:${PASSWORD}@h/db?PassWord=${PASSWORD}`)).not.toContain(PASSWORD);
    expect(redactUrl(`not a url password=${PASSWORD}`)).toBe("not a url password=***");
    expect(redactUrl("postgres://u@h/db")).toBe("postgres://u@h/db");
  });
});

describe("isDatabaseUnavailable", () => {
  const withCode = (code: string, message = "x") => Object.assign(new Error(message), { code });
  it("is true for a server that is away, starting, stopping or full", () => {
    for (const code of ["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "08006", "57P01", "57P03", "53300"])
      expect(isDatabaseUnavailable(withCode(code)), code).toBe(true);
    expect(isDatabaseUnavailable(new Error("Connection terminated unexpectedly"))).toBe(true);
    expect(isDatabaseUnavailable(new Error("timeout exceeded when trying to connect"))).toBe(true);
    expect(isDatabaseUnavailable(new PgStoreError("unreachable", "gone"))).toBe(true);
    expect(isDatabaseUnavailable(new SessionError("unavailable", "gone"))).toBe(true);
  });
  it("is false for a statement that is wrong, a refusal, or another verdict", () => {
    for (const code of ["42P01", "23505", "28P01", "3D000", "ENOTFOUND"])
      expect(isDatabaseUnavailable(withCode(code, "connection")), code).toBe(false);
    expect(isDatabaseUnavailable(new PgStoreError("lease_lost", "connection"))).toBe(false);
    expect(isDatabaseUnavailable(new SessionError("locked", "connection"))).toBe(false);
    expect(isDatabaseUnavailable(new Error("syntax error"))).toBe(false);
    expect(isDatabaseUnavailable(undefined)).toBe(false);
  });
});
