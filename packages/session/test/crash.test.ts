// Real child processes run agents that persist through the file store (and the PostgreSQL store)
// and are killed with SIGKILL at random points of their runs. Afterwards every session loads,
// every message the child saw written (acknowledged) is there, and every interrupted run resumes
// to completion in this process.
// Kills are placed by what the child has done (after its n-th written message), never by a clock,
// and the test keeps killing until it has the kills it needs, so a slow machine only makes it
// take longer.
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { Message } from "@tern/ai";
import { createFaux } from "@tern/ai/testing";
import { PgSessionStore } from "@tern/store-pg";
import { afterAll, describe, expect, it } from "vitest";
import { FileSessionStore } from "../src/file-store.js";
import { createSessionAgent } from "../src/persist-agent.js";
import { INTERRUPTED_RESULT } from "../src/repair.js";
import { resumeSession } from "../src/resume.js";
import type { SessionStore } from "../src/types.js";
import { slowEcho, transcriptProblems } from "./support/agent.js";
import { tempHome } from "./support/helpers.js";
import { startTestPostgres, type TestPostgres } from "./support/postgres.js";
import { bundledTs, REPO_ROOT } from "./support/spawn.js";

const KILLS = Number(process.env.TERN_CRASH_KILLS ?? 50);
/** The PostgreSQL run: each kill leaves a lease to wait out, so fewer kills. */
const PG_KILLS = Number(process.env.TERN_CRASH_PG_KILLS ?? 10);
/** A killed child's lease blocks its session this long; short, so resuming waits little. */
const PG_LEASE_MS = 1_000;
const LOCKED_POLL_MS = 100;
/** At least this share of the kills must land mid-run (the session needs a continue after repair). */
const MIN_CONTINUED_SHARE = 1 / 5;
/** A generous cap on kills: placed after a written message, they nearly always land mid-run. */
const MAX_KILLS_FACTOR = 4;
/** A child is killed after its n-th written message, n in 1..this (its first sessions). */
const MAX_MESSAGES_BEFORE_KILL = 30;
/** Then after up to this many ms more, so the kill also lands inside writes and tool calls. */
const MAX_JITTER_MS = 4;
/**
 * The PostgreSQL child prints its messages at each turn's flush, so a kill placed after a print
 * starts at a turn boundary: a wider jitter lets it land in the next turn's tool calls too.
 */
const PG_MAX_JITTER_MS = 40;
const CONCURRENCY = 4;
/** Ceiling for a hang; the work itself takes a fraction of this even on a busy machine. */
const CEILING_MS = 300_000;
const CHILD = fileURLToPath(new URL("./support/crash-child.ts", import.meta.url));
const home = tempHome("tern-crash-");
afterAll(() => home.cleanup());

interface ChildLog {
  sessions: string[];
  messages: Map<string, string[]>;
  done: Set<string>;
}

/** Runs one child, kills it `jitterMs` after its `afterMessages`-th written message, returns what it printed. */
function runAndKill(
  command: string[],
  extraArgs: string[],
  seed: number,
  afterMessages: number,
  jitterMs: number,
): Promise<ChildLog> {
  const log: ChildLog = { sessions: [], messages: new Map(), done: new Set() };
  const child: ChildProcess = spawn(process.execPath, [...command, home.home, String(seed), ...extraArgs], {
    cwd: REPO_ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let buffer = "";
  let stderr = "";
  let written = 0;
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split("\n");
      buffer = lines.pop()!;
      for (const line of lines) {
        const [kind, id, entry] = line.split(" ");
        if (kind === "session") {
          log.sessions.push(id!);
          log.messages.set(id!, []);
        } else if (kind === "message") {
          log.messages.get(id!)!.push(entry!);
          if (++written === afterMessages) setTimeout(() => child.kill("SIGKILL"), jitterMs);
        } else if (kind === "done") log.done.add(id!);
      }
    });
    child.once("exit", (_code, signal) => {
      if (signal !== "SIGKILL") reject(new Error(`child ended without being killed: ${stderr}`));
      else resolve(log);
    });
  });
}

let pg: TestPostgres | undefined;
let pgStore: PgSessionStore | undefined;
afterAll(async () => {
  await pgStore?.close();
  await pg?.dispose();
});

/** The store the test reads with, what the child is told, and how many kills. */
async function setupKind(
  kind: "file" | "postgres",
): Promise<{ store: SessionStore; args: string[]; kills: number; jitter: number }> {
  if (kind === "file")
    return {
      store: new FileSessionStore({ home: home.home, fsync: "never" }),
      args: [],
      kills: KILLS,
      jitter: MAX_JITTER_MS,
    };
  pg = await startTestPostgres();
  const store = await PgSessionStore.connect({ url: pg.url, leaseMs: PG_LEASE_MS });
  pgStore = store;
  return { store, args: [pg.url, String(PG_LEASE_MS)], kills: PG_KILLS, jitter: PG_MAX_JITTER_MS };
}

/** resumeSession, waiting out the lease a killed child left (the file store takes a dead pid's lock at once). */
async function resumeWhenFree(store: SessionStore, id: string) {
  for (;;) {
    try {
      return await resumeSession(store, id);
    } catch (error) {
      if ((error as { code?: string }).code !== "locked") throw error;
      await new Promise((resolve) => setTimeout(resolve, LOCKED_POLL_MS));
    }
  }
}

describe.each(["file", "postgres"] as const)("crash safety: the %s store", (kind) => {
  it(
    `survives SIGKILLs at random points: sessions load, printed messages are there, runs resume`,
    async () => {
      // Plain node on the child's bundle (spawn.ts): 50 kills would pay tsx's transpiling 50 times.
      const command = [bundledTs(CHILD)];
      const { store, args, kills, jitter } = await setupKind(kind);
      const minContinued = Math.ceil(kills * MIN_CONTINUED_SHARE);
      const seen = { kills: 0, printedMessages: 0, repairedCalls: 0, continued: 0 };
      const enough = () => seen.kills >= kills && seen.continued >= minContinued && seen.repairedCalls > 0;

      const sessions: string[] = [];
      /** Checks one killed child's sessions: each loads undamaged and resumes to completion. */
      const verify = async (log: ChildLog) => {
        for (const id of log.sessions) {
          sessions.push(id);
          // Every file loads. The only damage a kill may leave is a torn last line: each line is one
          // write(), but Linux stops a write to a regular file between pages when SIGKILL arrives,
          // so a line crossing a page boundary can be cut. That line was never acknowledged.
          const loaded = await store.load(id);
          for (const warning of loaded.warnings)
            expect(warning.message).toMatch(/partial last line .*skipped/);
          const written = new Set(loaded.entries().map((entry) => entry.id));
          for (const entryId of log.messages.get(id)!) {
            expect(written.has(entryId)).toBe(true);
            seen.printedMessages++;
          }

          // Resume: repair, then continue with a fresh scripted model until the run completes.
          const resumed = await resumeWhenFree(store, id);
          seen.repairedCalls += resumed.repair.appended.length;
          for (const appended of resumed.repair.appended)
            expect(appended.content).toEqual([{ type: "text", text: INTERRUPTED_RESULT }]);
          if (resumed.needsContinue) {
            seen.continued++;
            const faux = createFaux({ replies: ["resumed to completion"] });
            const { agent } = createSessionAgent(resumed.session, { model: faux.model, tools: [slowEcho()] });
            const run = await agent.continue();
            expect(run.stopReason).toBe("stop");
            expect(faux.requests[0]!.context.messages.at(-1)!.role).not.toBe("assistant");
          }
          const messages = resumed.session.buildContext().messages as Message[];
          await resumed.session.close();
          expect(transcriptProblems(messages)).toEqual([]);
          if (messages.length > 0) {
            const last = messages.at(-1)!;
            expect(last.role).toBe("assistant");
            expect(last.role === "assistant" && last.stopReason).toBe("stop");
          }
          // What the resumed run wrote is itself a valid file.
          expect((await store.load(id)).warnings).toEqual([]);
        }
      };

      let started = 0;
      const worker = async () => {
        while (!enough() && started < kills * MAX_KILLS_FACTOR) {
          const n = ++started;
          const seed = (n * 2654435761) % 2147483647;
          const afterMessages = 1 + (seed % MAX_MESSAGES_BEFORE_KILL);
          const jitterMs = Math.floor(Math.random() * (jitter + 1));
          const log = await runAndKill(command, args, seed, afterMessages, jitterMs);
          seen.kills++;
          await verify(log);
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));

      // Listed once every child is dead (a live child may be writing a file the listing reads).
      const listed = new Set((await store.list()).map((summary) => summary.id));
      expect(sessions.filter((id) => !listed.has(id))).toEqual([]);
      // Reached before the cap: the kills landed in the middle of runs, not only between them.
      expect(seen.kills).toBeGreaterThanOrEqual(kills);
      expect(seen.continued).toBeGreaterThanOrEqual(minContinued);
      expect(seen.repairedCalls).toBeGreaterThan(0);
      console.log(
        `crash test (${kind}): ${seen.kills} kills, ${sessions.length} sessions, ${seen.printedMessages} printed messages found, ` +
          `${seen.continued} runs continued, ${seen.repairedCalls} tool calls repaired`,
      );
    },
    CEILING_MS,
  );
});
