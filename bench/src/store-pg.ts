// The per-event cost of the PostgreSQL session store against the file store: one session per
// store and round, EVENTS run events (~0.5 KB each) appended with a flush every EVENTS_PER_TURN
// (the agent bridge flushes at each turn's end), timed from the first append to the last flush;
// then the same with one flush at the end (the cost of an append itself, batched).
// Rounds interleave the two stores so both see the same machine load; medians with min-max.
// The database is a throwaway cluster on loopback (scripts/pg-cluster.sh) with fsync turned back
// on, so a commit reaches the disk as the file store's "turn" fsync does.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { FileSessionStore, type PersistedEvent, type SessionStore } from "@tern/session";
import { PgSessionStore } from "@tern/store-pg";
import { startTestPostgres } from "../../packages/session/test/support/postgres.js";
import { round } from "./measure.js";

const EVENTS = 600;
const EVENTS_PER_TURN = 10;
const CASES = [EVENTS_PER_TURN, EVENTS];
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);

function event(i: number): PersistedEvent {
  return {
    type: "tool_execution_end",
    toolCallId: `call_${i}`,
    toolName: "read",
    result: { content: [{ type: "text", text: `line ${i}: ${"lorem ipsum dolor sit amet ".repeat(16)}` }] },
    isError: false,
  };
}

/** µs per event: appends plus the turn flushes, over one fresh session. */
async function perEvent(store: SessionStore, events: PersistedEvent[], flushEvery: number): Promise<number> {
  const session = await store.create({ cwd: "/bench/store" });
  const start = performance.now();
  for (let i = 0; i < events.length; i++) {
    session.appendEvent(events[i]!);
    if (i % flushEvery === flushEvery - 1) await session.flush();
  }
  await session.flush();
  const us = ((performance.now() - start) * 1000) / events.length;
  await session.close();
  return us;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function storePgBench(): Promise<Record<string, string | number>[]> {
  const home = mkdtempSync(join(tmpdir(), "tern-bench-store-"));
  const cluster = await startTestPostgres();
  const file = new FileSessionStore({ home, fsync: "turn" });
  const pg = await PgSessionStore.connect({ url: cluster.url });
  try {
    await pg.pool.query("ALTER SYSTEM SET fsync = on");
    await pg.pool.query("SELECT pg_reload_conf()");
    const events = Array.from({ length: EVENTS }, (_, i) => event(i));
    const rows: Record<string, string | number>[] = [];
    for (const flushEvery of CASES) {
      const times: Record<"file" | "postgres", number[]> = { file: [], postgres: [] };
      for (let round = -1; round < ROUNDS; round++) {
        // One warm-up round; then the order alternates so neither store always goes first.
        const order = round % 2 === 0 ? (["file", "postgres"] as const) : (["postgres", "file"] as const);
        for (const kind of order) {
          const us = await perEvent(kind === "file" ? file : pg, events, flushEvery);
          if (round >= 0) times[kind].push(us);
        }
      }
      const ratios = times.postgres.map((us, i) => us / times.file[i]!);
      const row = (store: string, values: number[], digits: number) => ({
        store,
        events: EVENTS,
        "flush every": flushEvery,
        rounds: ROUNDS,
        "µs/event median": round(median(values), digits),
        "min–max": `${round(Math.min(...values), digits)}–${round(Math.max(...values), digits)}`,
      });
      rows.push(
        row("file", times.file, 1),
        row("postgres", times.postgres, 1),
        row("postgres / file (per round)", ratios, 2),
      );
    }
    return rows;
  } finally {
    await pg.close();
    await cluster.dispose();
    rmSync(home, { recursive: true, force: true });
  }
}
