// One runtime, one phase of one workload, in a fresh process: load only this runtime's adapter,
// set it up against the server's lane, run the phase and send its metrics to the parent.
// A runtime that cannot be loaded or set up is "unable"; one whose runs fail is "failed".

import type { RunFn } from "../peers/runtime.js";
import { RUNTIMES } from "../peers/runtimes.js";
import { SCALING_WORKLOADS, SCRIPTS, type Script, turnsOf } from "../peers/script.js";
import { laneName, type Metrics, type WorkerArgs } from "./harness.js";

export interface PhaseContext {
  run: RunFn;
  script: Script;
  args: WorkerArgs;
  lane: string;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** RSS right after the runtime was loaded and set up, before any run. */
  rssAfterSetupMiB: number;
}

export type Phase = (context: PhaseContext) => Promise<Metrics>;

const PHASE_MODULES: Record<string, () => Promise<Record<string, Phase>>> = {
  loop: async () => (await import("./loop.js")).PHASES,
  latency: async () => (await import("./latency.js")).PHASES,
  tools: async () => (await import("./many-tools.js")).PHASES,
  "tools-imperfect": async () => (await import("./many-tools.js")).PHASES,
  concurrency: async () => (await import("./concurrency.js")).PHASES,
  ...Object.fromEntries(
    SCALING_WORKLOADS.map((id) => [id, async () => (await import("./scaling.js")).PHASES] as const),
  ),
};

const args = JSON.parse(process.argv[2] ?? "{}") as WorkerArgs;

// Runs with --no-warnings: a warning a runtime raises on every run would flood the log. They are
// counted by name instead and reported in the tables' `warnings` row; the first of each is logged.
const warnings = new Map<string, number>();
process.on("warning", (warning) => {
  const count = warnings.get(warning.name) ?? 0;
  if (count === 0)
    process.stderr.write(
      `  ${args.runtime} (${args.workload}/${args.phase}): ${warning.name}: ${warning.message}\n`,
    );
  warnings.set(warning.name, count + 1);
});
const warningSummary = () =>
  [...warnings].map(([name, count]) => `${name.replace(/Warning$/, "")} x${count}`).join(", ");

function send(message: unknown): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send) return resolve();
    process.send(message, () => resolve());
  });
}

async function main(): Promise<void> {
  const phases = await PHASE_MODULES[args.workload]!();
  const phase = phases[args.phase];
  if (!phase) throw new Error(`no phase ${args.phase} in ${args.workload}`);
  const script = SCRIPTS[args.workload];
  const lane = laneName(args);
  const origin = `http://127.0.0.1:${args.port}`;
  let run: RunFn;
  try {
    const adapter = await RUNTIMES[args.runtime].load();
    run = await adapter.setup({
      baseUrl: `${origin}/${lane}/v1`,
      system: script.system,
      tools: script.tools,
      turns: turnsOf(script),
    });
  } catch (error) {
    await send({ ok: false, unable: true, error: `setup: ${describe(error)}` });
    return;
  }
  const rssAfterSetupMiB = process.memoryUsage().rss / 1024 / 1024;
  const metrics = await phase({ run, script, args, lane, origin, rssAfterSetupMiB });
  await send({ ok: true, metrics: { ...metrics, warnings: warningSummary() } });
}

function describe(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.replace(/\s+/g, " ").slice(0, 300);
}

main()
  .catch(async (error: unknown) => {
    await send({ ok: false, error: describe(error) });
  })
  // Runtimes may keep sockets or timers alive; the phase is over.
  .finally(() => process.exit(0));
