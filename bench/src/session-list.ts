// Session listing: 1,000 sessions of about 164 KB each (the case), listed through the
// store (cold: no index yet; warm: the index is up to date; after one session grew) and through
// the CLI (`tern sessions ls --all` and `tern usage` in a fresh process, the figures a user waits
// for), next to a floor of `node` starting and exiting: wall time, and the CPU time (user + system)
// of the child, to the millisecond. Interleaved: each round runs every case once.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { FileSessionStore, type PersistedEvent } from "@tern/session";
import { round } from "./measure.js";
import { message } from "./session.js";
import { median } from "./workloads/table.js";

const SESSIONS = Number(process.env.BENCH_LIST_SESSIONS ?? 1000);
/** Messages per session: about 0.55 KB each, so 300 make a file of about 164 KB. */
const MESSAGES = 300;
const ROUNDS = 10;
const CLI = new URL("../../packages/cli/dist/tern.js", import.meta.url).pathname;

async function fill(home: string): Promise<number> {
  const store = new FileSessionStore({ home, fsync: "never" });
  const messages = Array.from({ length: MESSAGES }, (_, i) => message(i));
  let bytes = 0;
  for (let s = 0; s < SESSIONS; s++) {
    const session = await store.create({ cwd: `/bench/project-${s % 10}` });
    for (const m of messages) session.appendMessage(m);
    for (let call = 0; call < 2; call++) session.appendEvent(modelCallEnd(call));
    await session.close();
    bytes += statSync(session.path!).size;
  }
  return bytes / SESSIONS / 1024;
}

/** A model call's end as the runtime persists it: what `tern usage` adds up. */
function modelCallEnd(call: number): PersistedEvent {
  const usage = { input: 1000 + call, output: 200, cacheRead: 0, cacheWrite: 0, totalTokens: 1200 + call };
  return {
    type: "model_call_end",
    provider: "openai",
    model: "gpt-4.1-mini",
    purpose: "turn",
    usage: { ...usage, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.001 } },
  } as unknown as PersistedEvent;
}

/**
 * Wall ms and CPU ms (user + system) of one fresh `node` child, the CPU from bash's `times`,
 * which reports children to the millisecond: /usr/bin/time truncates user and system to 10 ms
 * each, which under-counts a 100 ms floor by ~10% and a 230 ms listing by ~4%, skewing the ratio.
 */
function cli(home: string, args: string[]): { wall: number; cpu: number } {
  const start = performance.now();
  const result = spawnSync(
    "bash",
    ["-c", '"$@" > /dev/null || exit; times', "bash", process.execPath, ...args],
    {
      env: { ...process.env, TERN_HOME: home },
      encoding: "utf8",
    },
  );
  const wall = performance.now() - start;
  if (result.status !== 0)
    throw new Error(`${args.join(" ")} exited ${result.status}: ${result.stderr.slice(0, 200)}`);
  // `times` prints the shell's own times, then its children's: "0m0.183s 0m0.047s".
  const children = result.stdout.trim().split("\n").at(-1) ?? "";
  const [user, system] = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map(
    ([, m, s]) => Number(m) * 60 + Number(s),
  );
  if (user === undefined || system === undefined) throw new Error(`no CPU times from bash: ${result.stdout}`);
  return { wall, cpu: (user + system) * 1000 };
}

export async function sessionListBench(): Promise<Record<string, string | number>[]> {
  const home = mkdtempSync(join(tmpdir(), "tern-bench-list-"));
  try {
    const kb = await fill(home);
    const listAll = () => new FileSessionStore({ home }).list();
    let count = 0;
    const coldStart = performance.now();
    count = (await listAll()).length;
    const cold = performance.now() - coldStart;
    const warm: number[] = [];
    const grown: number[] = [];
    const cliLs: { wall: number; cpu: number }[] = [];
    const cliUsage: { wall: number; cpu: number }[] = [];
    const floor: { wall: number; cpu: number }[] = [];
    const hasCli = existsSync(CLI);
    const writer = new FileSessionStore({ home, fsync: "never" });
    const [first] = await listAll();
    for (let r = 0; r < ROUNDS; r++) {
      let start = performance.now();
      await listAll();
      warm.push(performance.now() - start);
      const session = await writer.open(first!.id);
      session.appendMessage(message(r));
      await session.close();
      start = performance.now();
      await listAll();
      grown.push(performance.now() - start);
      if (hasCli) {
        cliLs.push(cli(home, [CLI, "sessions", "ls", "--all"]));
        cliUsage.push(cli(home, [CLI, "usage"]));
        floor.push(cli(home, ["-e", ""]));
      }
    }
    const spread = (values: number[]) =>
      values.length === 0
        ? "- (run `npm run build` first)"
        : `${round(median(values), 1)} [${round(Math.min(...values), 1)} – ${round(Math.max(...values), 1)}]`;
    const row = (name: string, ms: string | number) => ({
      case: name,
      sessions: count,
      "KB/session": round(kb, 0),
      "ms (median [min – max] of 10)": ms,
    });
    return [
      row("store.list(), cold (builds the index)", round(cold, 1)),
      row("store.list(), warm (index up to date)", spread(warm)),
      row("store.list(), after one session grew", spread(grown)),
      row("`tern sessions ls --all` (fresh process), wall", spread(cliLs.map((s) => s.wall))),
      row("`tern usage` (fresh process), wall", spread(cliUsage.map((s) => s.wall))),
      row("  floor: `node -e ''` (fresh process), wall", spread(floor.map((s) => s.wall))),
      row("`tern sessions ls --all`, CPU ms", spread(cliLs.map((s) => s.cpu))),
      row("`tern usage`, CPU ms", spread(cliUsage.map((s) => s.cpu))),
      row("  floor: `node -e ''`, CPU ms", spread(floor.map((s) => s.cpu))),
    ];
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
