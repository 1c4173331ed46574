// `tern mcp serve` as an MCP host meets it: the official SDK client spawns it over stdio, and the
// figure is spawn -> the `initialize` result (the client's `connect`, which sends `initialize`
// and waits for the answer). Twice: with no MCP server configured, and with one configured that
// takes SLOW_START_MS to come up (a real SDK server, slow-mcp-server.mjs), which must not hold
// the answer back. Next to the floor of `node -e ''` (spawn -> exit), in the same rounds, the
// order rotated each round so the machine's load falls on every case alike. The ratio to node
// is taken within each round, then shown as median [min – max] over the rounds.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Rows } from "./benches.js";
import { ensureTernBuilt, TERN_JS } from "./startup.js";
import { rotation } from "./workloads/suite.js";
import { median, spread } from "./workloads/table.js";

const ROUNDS = Number(process.env.BENCH_STARTUP_ROUNDS ?? 15);
/** Far longer than any answer measured here: an `initialize` that waited for it would show. */
const SLOW_START_MS = 30_000;
/** The issue's target: `initialize` answered within this multiple of `node -e ''`'s start-up. */
const TARGET = 2;
const SLOW_SERVER = fileURLToPath(new URL("./slow-mcp-server.mjs", import.meta.url));
const FLOOR = "node -e '' (spawn -> exit)";

const nanos = () => process.hrtime.bigint();
const msSince = (start: bigint) => Number(nanos() - start) / 1e6;

async function nodeFloor(): Promise<number> {
  const start = nanos();
  const child = spawn(process.execPath, ["-e", ""], { stdio: "pipe" });
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  if (code !== 0) throw new Error(`node -e '' exited ${code}`);
  return msSince(start);
}

/** Spawn -> initialize result of `tern mcp serve` in a home whose mcp.json holds `servers`. */
async function ternInitialize(home: string, work: string): Promise<number> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    // The model is checked at start (a bad flag exits before the host connects), never called here.
    args: [
      TERN_JS,
      "mcp",
      "serve",
      "--cwd",
      work,
      "--provider",
      "bench",
      "--base-url",
      "http://127.0.0.1:9/v1",
      "-m",
      "bench-model",
      "--api-key",
      "bench",
    ],
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, TERN_HOME: home, NO_COLOR: "1" },
    stderr: "pipe",
  });
  const client = new Client({ name: "tern-bench", version: "1.0.0" });
  const start = nanos();
  try {
    await client.connect(transport);
    const took = msSince(start);
    const name = client.getServerVersion()?.name;
    if (name !== "tern") throw new Error(`initialize answered by ${name ?? "nobody"}, not tern`);
    return took;
  } finally {
    await client.close();
  }
}

function homeWith(servers: Record<string, unknown>): string {
  const home = mkdtempSync(join(tmpdir(), "tern-bench-mcp-init-"));
  writeFileSync(join(home, "mcp.json"), JSON.stringify({ mcpServers: servers }));
  return home;
}

export async function mcpInitializeBench(): Promise<Rows> {
  ensureTernBuilt();
  const work = mkdtempSync(join(tmpdir(), "tern-bench-mcp-work-"));
  const plain = homeWith({});
  const slow = homeWith({
    "slow-start": { type: "stdio", command: process.execPath, args: [SLOW_SERVER, String(SLOW_START_MS)] },
  });
  const cases: [string, () => Promise<number>][] = [
    [FLOOR, nodeFloor],
    ["tern mcp serve (spawn -> initialize result)", () => ternInitialize(plain, work)],
    [
      `tern mcp serve, one MCP server slow to start (${SLOW_START_MS / 1000} s) configured`,
      () => ternInitialize(slow, work),
    ],
  ];
  const samples = new Map<string, number[]>(cases.map(([name]) => [name, []]));
  try {
    for (const [, measure] of cases) await measure(); // warm the file cache
    for (let r = 0; r < ROUNDS; r++)
      for (const [name, measure] of rotation(cases, r)) samples.get(name)!.push(await measure());
  } finally {
    for (const dir of [work, plain, slow]) rmSync(dir, { recursive: true, force: true });
  }
  const floor = samples.get(FLOOR)!;
  return cases.map(([name]) => {
    const values = samples.get(name)!;
    const ratios = values.map((v, r) => v / floor[r]!);
    return {
      case: name,
      "wall ms": spread(values, 1),
      "x node -e '' (within each round)": name === FLOOR ? "-" : spread(ratios, 2, "x"),
      [`within ${TARGET}x?`]: name === FLOOR ? "-" : median(ratios) <= TARGET ? "yes (median)" : "no",
      rounds: ROUNDS,
    };
  });
}
