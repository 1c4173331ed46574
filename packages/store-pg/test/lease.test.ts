import { fileURLToPath } from "node:url";
import { SessionError } from "@tern/session";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SHARED_START_CEILING_MS, sharedPostgres } from "../../session/test/support/shared-postgres.js";
import { spawnTs, waitForLine } from "../../session/test/support/spawn.js";
import { PgStoreError } from "../src/errors.js";
import { PgSessionStore } from "../src/pg-store.js";

/** Short enough that the takeover test waits little; long enough that a loaded machine still renews a live holder's (every third of it). */
const LEASE_MS = 8_000;
const POLL_MS = 200;

/** A database of this file's own on the run's shared PostgreSQL server. */
let url: string;
const stores: PgSessionStore[] = [];
beforeAll(async () => {
  url = await sharedPostgres();
}, SHARED_START_CEILING_MS);
afterAll(async () => {
  for (const store of stores) await store.close();
});

async function newStore(options: { leaseMs?: number } = {}): Promise<PgSessionStore> {
  const store = await PgSessionStore.connect({ url, leaseMs: LEASE_MS, ...options });
  stores.push(store);
  return store;
}

async function failure(promise: Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await promise;
  } catch (error) {
    return error as Error & { code?: string };
  }
  throw new Error("expected a rejection");
}

describe("the single-writer lease", () => {
  it("a live process holds it (refused, naming the holder); once that process is killed, its lease runs out and is taken over", async () => {
    const store = await newStore();
    const session = await store.create({ cwd: "/lease" });
    session.appendMessage({ role: "user", content: "before", timestamp: 1 });
    await session.close();

    const holder = spawnTs(fileURLToPath(new URL("./support/hold-session.ts", import.meta.url)), [
      url,
      session.id,
      String(LEASE_MS),
    ]);
    try {
      await waitForLine(holder, "ready");
      const refused = await failure(store.open(session.id));
      expect(refused).toBeInstanceOf(SessionError);
      expect(refused.code).toBe("locked");
      expect(refused.message).toContain(`:${holder.pid}:`);
    } finally {
      const exited = new Promise((resolve) => holder.once("exit", resolve));
      holder.kill("SIGKILL");
      await exited;
    }
    // No one renews the dead holder's lease: it expires and the next open takes the session.
    let taken: Awaited<ReturnType<PgSessionStore["open"]>> | undefined;
    while (!taken) {
      try {
        taken = await store.open(session.id);
      } catch (error) {
        if ((error as SessionError).code !== "locked") throw error;
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    }
    expect(taken.entries().map((e) => e.type)).toEqual(["message", "custom"]);
    taken.appendMessage({ role: "user", content: "after", timestamp: 2 });
    await taken.close();
    const lines = await store.pool.query(
      "SELECT seq FROM tern_session_lines WHERE session_id = $1 ORDER BY seq",
      [session.id],
    );
    expect(lines.rows.map((row) => row.seq)).toEqual([1, 2, 3]);
  });

  it("a writer whose lease was taken over fails on its next write instead of writing over the new writer", async () => {
    const store = await newStore();
    const first = await store.create({ cwd: "/fence" });
    first.appendMessage({ role: "user", content: "one", timestamp: 1 });
    await first.flush();
    // As if the first writer had been paused longer than its lease.
    await store.pool.query(
      "UPDATE tern_sessions SET lease_expires = now() - interval '1 second' WHERE id = $1",
      [first.id],
    );
    const second = await (await newStore()).open(first.id);
    first.appendMessage({ role: "user", content: "stale", timestamp: 2 });
    const lost = await failure(first.flush());
    expect(lost).toBeInstanceOf(PgStoreError);
    expect(lost.code).toBe("lease_lost");
    expect(() => first.appendMessage({ role: "user", content: "more", timestamp: 3 })).toThrow(
      /lost its lease/,
    );
    await first.close().catch(() => {});
    second.appendMessage({ role: "user", content: "two", timestamp: 4 });
    await second.close();
    const loaded = await store.load(first.id);
    expect(loaded.buildContext().messages.map((m) => m.content)).toEqual(["one", "two"]);
  });
});
