// Scaling workloads: how a runtime's client CPU grows with the transcript (200 turns against 25),
// with one tool argument streamed one character per chunk (4, 64 and 200 KiB), and with a 2 MiB
// tool result. Same server, same checks and the same interleaved rounds as the peer workloads;
// the figures are compared with the bare baseline loop (the targets: 200 KiB arguments
// within 3x of it, per-turn growth within 1.5x). vercel-ai and openai-agents run every workload
// too (in a trial round vercel-ai took 73 s of wall time for the 64 KiB argument, tern 12 s): the
// workers' limits follow each row's own pace, and a row that runs out of time twice is marked and
// not run again. pi is left out: it re-parses the whole argument on every chunk, so 200 KiB would
// measure time-outs.
import type { Rows } from "../benches.js";
import type { RuntimeId } from "../peers/runtimes.js";
import { SCRIPTS, type ScalingWorkloadId, turnsOf, WARMUP_BASE } from "../peers/script.js";
import type { Metrics, WorkerOutcome } from "./harness.js";
import { checkedRun } from "./loop.js";
import { timed } from "./stats.js";
import { metricOf, type Outcomes, runSuite, selectedRuntimes, statusRows } from "./suite.js";
import { type MetricRow, sideBySideRounds } from "./table.js";
import type { Phase } from "./worker.js";

/** One measured run per worker and round; the short transcript workload warms up first (its
 * runs last milliseconds), the others run for seconds, long past any JIT warm-up. */
const MEASURED_RUNS = 1;
const warmUpRuns = (workload: string) => (workload === "growth-25" ? 3 : 0);

export const PHASES: Record<string, Phase> = {
  async run(context) {
    const warmUps = warmUpRuns(context.args.workload);
    for (let i = 0; i < warmUps; i++) await checkedRun(context, WARMUP_BASE + i);
    const timing = await timed(async () => {
      for (let i = 0; i < MEASURED_RUNS; i++) await checkedRun(context, i);
    });
    return { cpuMs: timing.cpuMs / MEASURED_RUNS, wallMs: timing.wallMs / MEASURED_RUNS } satisfies Metrics;
  },
};

const ALL = selectedRuntimes(["baseline", "tern", "vercel-ai", "openai-agents"]);
const LINEAR_ONLY = ALL;

async function cpuPerRun(workload: ScalingWorkloadId, runtimes: RuntimeId[]): Promise<Outcomes[]> {
  const expectedRuns = MEASURED_RUNS + warmUpRuns(workload);
  return runSuite(workload, runtimes, [{ phase: "run", expectedRuns }]);
}

const cpu = (outcomes: Outcomes, runtimes: RuntimeId[]) =>
  metricOf(outcomes, runtimes, "run", (m: Metrics) => Number(m.cpuMs));

/**
 * Per-turn growth: a turn's cost is about a + g·(earlier turns), so the mean cost per turn of an
 * n-turn run is a + g·(n-1)/2 and g = (mean200 - mean25) / ((200 - 25) / 2). Shown per 100
 * earlier turns, in µs.
 */
function growthRows(short: Outcomes, long: Outcomes): MetricRow[] {
  const shortTurns = turnsOf(SCRIPTS["growth-25"]);
  const longTurns = turnsOf(SCRIPTS["growth-200"]);
  const perTurn = (outcomes: Outcomes, turns: number) =>
    metricOf(outcomes, ALL, "run", (m: Metrics) => (Number(m.cpuMs) * 1000) / turns);
  const a = perTurn(short, shortTurns);
  const b = perTurn(long, longTurns);
  const growth: MetricRow["values"] = {};
  for (const id of ALL) {
    const x = a[id];
    const y = b[id];
    growth[id] =
      typeof x === "number" && typeof y === "number"
        ? ((y - x) / ((longTurns - shortTurns) / 2)) * 100
        : typeof y === "string"
          ? y
          : x;
  }
  return [
    { metric: `cpu µs/turn, ${shortTurns}-turn run`, values: a },
    { metric: `cpu µs/turn, ${longTurns}-turn run`, values: b },
    { metric: "per-turn growth: µs added per turn by 100 earlier turns", values: growth },
    ...statusRows({ ...mergeStatus(short, long) }, ALL),
  ];
}

/** One round's status over both growth workloads (a failure in either shows). */
function mergeStatus(a: Outcomes, b: Outcomes): Outcomes {
  const out: Outcomes = {};
  for (const id of ALL) {
    const phases: Record<string, WorkerOutcome> = {};
    const short = a[id]?.run;
    const long = b[id]?.run;
    if (short) phases.short = short;
    if (long) phases.long = long;
    out[id] = phases;
  }
  return out;
}

export async function scalingBench(): Promise<Rows> {
  const short = await cpuPerRun("growth-25", ALL);
  const long = await cpuPerRun("growth-200", ALL);
  const args4 = await cpuPerRun("args-4k", LINEAR_ONLY);
  const args64 = await cpuPerRun("args-64k", LINEAR_ONLY);
  const args200 = await cpuPerRun("args-200k", LINEAR_ONLY);
  const result = await cpuPerRun("result-2m", ALL);
  const rounds = short.map((_, r) => {
    return [
      ...growthRows(short[r]!, long[r]!),
      {
        metric: "1-char chunks, 4 KiB argument: cpu ms/run",
        values: cpu(args4[r]!, LINEAR_ONLY),
        digits: 2,
      },
      { metric: "1-char chunks, 64 KiB argument: cpu ms/run", values: cpu(args64[r]!, LINEAR_ONLY) },
      { metric: "1-char chunks, 200 KiB argument: cpu ms/run", values: cpu(args200[r]!, LINEAR_ONLY) },
      { metric: "2 MiB tool result: cpu ms/run", values: cpu(result[r]!, ALL) },
      ...statusRows(args200[r]!, LINEAR_ONLY).map((row) => ({
        ...row,
        metric: `200 KiB argument: ${row.metric}`,
      })),
      ...statusRows(result[r]!, ALL).map((row) => ({ ...row, metric: `2 MiB result: ${row.metric}` })),
    ] satisfies MetricRow[];
  });
  return sideBySideRounds(ALL, rounds);
}
