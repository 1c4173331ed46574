// Start-up cost of the `tern` command: `tern --version` (the entry file alone) and `tern --help`
// against bare `node -e 0`, interleaved round by round so load on the machine hits all three alike.
// Medians with their range; "tern cost" is the median of each round's difference to bare Node.
// (The suite only checks that --version never loads the runtime bundle; the time lives here.)
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { round } from "./measure.js";
import { percentile } from "./workloads/stats.js";

const ROUNDS = Number(process.env.BENCH_STARTUP_ROUNDS ?? 30);
export const TERN_JS = fileURLToPath(new URL("../../packages/cli/dist/tern.js", import.meta.url));
const BUILD = fileURLToPath(new URL("../../packages/cli/scripts/build.mjs", import.meta.url));

/** Builds the `tern` bundle when it is missing (a stale one is measured as it is: `npm run build`). */
export function ensureTernBuilt(): void {
  if (!existsSync(TERN_JS)) execFileSync(process.execPath, [BUILD, "--quiet"]);
}

const CASES: Record<string, string[]> = {
  "node -e 0": ["-e", "0"],
  "node -e ''": ["-e", ""],
  "tern --version": [TERN_JS, "--version"],
  "tern --help": [TERN_JS, "--help"],
};

function wallMs(args: string[]): number {
  const start = process.hrtime.bigint();
  execFileSync(process.execPath, args, { stdio: "pipe" });
  return Number(process.hrtime.bigint() - start) / 1e6;
}

export async function startupBench() {
  ensureTernBuilt();
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(CASES).map((name) => [name, []]));
  for (const args of Object.values(CASES)) wallMs(args); // warm the file cache
  for (let i = 0; i < ROUNDS; i++)
    for (const [name, args] of Object.entries(CASES)) samples[name]!.push(wallMs(args));
  const node = samples["node -e 0"]!;
  return Object.entries(samples).map(([name, values]) => ({
    command: name,
    "median ms": round(percentile(values, 50), 1),
    "min ms": round(Math.min(...values), 1),
    "max ms": round(Math.max(...values), 1),
    "tern cost ms (median of round differences)":
      name === "node -e 0"
        ? "-"
        : round(
            percentile(
              values.map((v, i) => v - node[i]!),
              50,
            ),
            1,
          ),
    rounds: ROUNDS,
  }));
}
