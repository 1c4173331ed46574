// Real child processes run agents that persist through the file store and are killed with SIGKILL
// at random moments. Afterwards every file loads, every message the child saw written is there,
// and every interrupted run resumes to completion in this process.
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Message } from "@tern/ai";
import { createFaux } from "@tern/ai";
import { afterAll, describe, expect, it } from "vitest";
import { FileSessionStore } from "../src/file-store.js";
import { createSessionAgent } from "../src/persist-agent.js";
import { INTERRUPTED_RESULT } from "../src/repair.js";
import { resumeSession } from "../src/resume.js";
import { slowEcho, transcriptProblems } from "./support/agent.js";
import { tempHome } from "./support/helpers.js";
import { REPO_ROOT } from "./support/spawn.js";

const KILLS = Number(process.env.TERN_CRASH_KILLS ?? 50);
const CONCURRENCY = 4;
const CHILD = fileURLToPath(new URL("./support/crash-child.ts", import.meta.url));
const home = tempHome("tern-crash-");
afterAll(() => home.cleanup());

/**
 * How to start the child. `node --import tsx` pays for transpiling the whole import graph on every
 * start (over 3 s here, mostly @tern/ai's provider SDKs); bundling the same TypeScript once with
 * esbuild (tsx's own engine) brings a start under a second, which keeps 50 kills fast.
 */
async function childArgs(): Promise<string[]> {
  try {
    const esbuild = await import("esbuild");
    const outfile = join(home.home, "crash-child.mjs");
    await esbuild.build({
      entryPoints: [CHILD],
      outfile,
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      logLevel: "error",
      // CommonJS dependencies inside an ESM bundle still call require() for Node built-ins. The
      // alias must not be `__require`: esbuild declares that name itself for CommonJS code.
      banner: {
        js: 'import { createRequire as __ternCreateRequire } from "node:module"; const require = __ternCreateRequire(import.meta.url);',
      },
    });
    return [outfile];
  } catch {
    return ["--import", "tsx", CHILD];
  }
}

interface ChildLog {
  sessions: string[];
  messages: Map<string, string[]>;
  done: Set<string>;
}

/** Runs one child, kills it `afterMs` after it is ready, and returns what it printed. */
function runAndKill(command: string[], seed: number, afterMs: number): Promise<ChildLog> {
  const log: ChildLog = { sessions: [], messages: new Map(), done: new Set() };
  const child: ChildProcess = spawn(process.execPath, [...command, home.home, String(seed)], {
    cwd: REPO_ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let buffer = "";
  let stderr = "";
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
        if (kind === "ready") setTimeout(() => child.kill("SIGKILL"), afterMs);
        else if (kind === "session") {
          log.sessions.push(id!);
          log.messages.set(id!, []);
        } else if (kind === "message") log.messages.get(id!)!.push(entry!);
        else if (kind === "done") log.done.add(id!);
      }
    });
    child.once("exit", (_code, signal) => {
      if (signal !== "SIGKILL") reject(new Error(`child ended without being killed: ${stderr}`));
      else resolve(log);
    });
  });
}

describe("crash safety", () => {
  it(`survives ${KILLS} SIGKILLs at random moments: files load, printed messages are there, runs resume`, async () => {
    const command = await childArgs();
    const logs: ChildLog[] = [];
    let next = 0;
    const worker = async () => {
      while (next < KILLS) {
        const seed = ++next;
        // Kill delays spread over roughly the first few sessions of each child.
        logs.push(
          await runAndKill(command, (seed * 2654435761) % 2147483647, Math.floor(Math.random() * 350)),
        );
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    expect(logs).toHaveLength(KILLS);

    const store = new FileSessionStore({ home: home.home, fsync: "never" });
    const listed = new Set((await store.list()).map((summary) => summary.id));
    let printedMessages = 0;
    let repairedCalls = 0;
    let continued = 0;
    let complete = 0;
    let withMessages = 0;
    for (const log of logs) {
      for (const id of log.sessions) {
        expect(listed.has(id)).toBe(true);
        // Every file loads, with no damage reported (a kill never tears a line: each is one write).
        const loaded = await store.load(id);
        expect(loaded.warnings).toEqual([]);
        const written = new Set(loaded.entries().map((entry) => entry.id));
        for (const entryId of log.messages.get(id)!) {
          expect(written.has(entryId)).toBe(true);
          printedMessages++;
        }

        // Resume: repair, then continue with a fresh scripted model until the run completes.
        const resumed = await resumeSession(store, id);
        repairedCalls += resumed.repair.appended.length;
        for (const appended of resumed.repair.appended)
          expect(appended.content).toEqual([{ type: "text", text: INTERRUPTED_RESULT }]);
        if (resumed.needsContinue) {
          continued++;
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
          withMessages++;
          const last = messages.at(-1)!;
          expect(last.role).toBe("assistant");
          expect(last.role === "assistant" && last.stopReason).toBe("stop");
          complete++;
        }
        // What the resumed run wrote is itself a valid file.
        expect((await store.load(id)).warnings).toEqual([]);
      }
    }
    // The kills must have landed in the middle of runs, not only between them.
    expect(printedMessages).toBeGreaterThan(KILLS);
    expect(continued).toBeGreaterThan(KILLS / 5);
    expect(repairedCalls).toBeGreaterThan(0);
    expect(complete).toBe(withMessages);
    console.log(
      `crash test: ${KILLS} kills, ${listed.size} sessions, ${printedMessages} printed messages found, ` +
        `${continued} runs continued, ${repairedCalls} tool calls repaired`,
    );
  }, 120_000);
});
