// Workload 1, loop overhead: each run is 20 turns of one tool call, then a streamed answer
// (21 model calls). RUNS runs one after another in one process, RUNS at once in another
// (fresh processes, so each phase's peak RSS is its own). The server answers at once, so the
// client's CPU time is the runtime's cost; "overhead" is that minus the bare baseline's.

import type { Rows } from "../benches.js";
import type { RuntimeId } from "../peers/runtimes.js";
import { LOOP_TURNS, promptFor, runId, WARMUP_BASE } from "../peers/script.js";
import type { Metrics } from "./harness.js";
import { peakRssMiB, timed } from "./stats.js";
import { metricOf, type Outcomes, runSuite, selectedRuntimes, statusRows } from "./suite.js";
import { type MetricRow, sideBySideRounds } from "./table.js";
import type { Phase, PhaseContext } from "./worker.js";

/** Runs per phase per round (10 rounds by default: 300 sequential and 500 concurrent in all). */
const RUNS = Number(process.env.BENCH_LOOP_RUNS ?? 30);
const CONC_RUNS = Number(process.env.BENCH_LOOP_CONC_RUNS ?? 50);
const WARMUP = 10;
/** The concurrent phase also warms up with one smaller concurrent batch (heap growth, JIT). */
const CONC_WARMUP = 50;
const TURNS = LOOP_TURNS + 1;
const RUNTIMES = selectedRuntimes(["baseline", "tern", "pi", "vercel-ai", "openai-agents"]);

/** One run; its streamed text and its answer must both be the script's answer. */
export async function checkedRun(context: PhaseContext, n: number): Promise<void> {
  let text = "";
  const { answer } = await context.run(promptFor(context.args.workload, runId(n)), {
    onText: (delta) => {
      text += delta;
    },
  });
  if (text !== context.script.answer || answer !== context.script.answer)
    throw new Error(
      `run ${n}: streamed ${text.length} chars, answer ${answer.length}, script ${context.script.answer.length}`,
    );
}

async function warmUp(context: PhaseContext): Promise<void> {
  for (let i = 0; i < WARMUP; i++) await checkedRun(context, WARMUP_BASE + i);
}

function phaseMetrics(context: PhaseContext, timing: { wallMs: number; cpuMs: number }): Metrics {
  return {
    wallMs: timing.wallMs,
    cpuMs: timing.cpuMs,
    peakRssMiB: peakRssMiB(),
    rssAfterSetupMiB: context.rssAfterSetupMiB,
  };
}

export const PHASES: Record<string, Phase> = {
  async seq(context) {
    await warmUp(context);
    const timing = await timed(async () => {
      for (let i = 0; i < RUNS; i++) await checkedRun(context, i);
    });
    return phaseMetrics(context, timing);
  },
  async conc(context) {
    await warmUp(context);
    await Promise.all(
      Array.from({ length: CONC_WARMUP }, (_, i) => checkedRun(context, WARMUP_BASE + 50_000 + i)),
    );
    const timing = await timed(async () => {
      await Promise.all(Array.from({ length: CONC_RUNS }, (_, i) => checkedRun(context, i)));
    });
    return phaseMetrics(context, timing);
  },
};

export async function loopBench(): Promise<Rows> {
  const phases = [
    { phase: "seq", expectedRuns: RUNS + WARMUP },
    { phase: "conc", expectedRuns: CONC_RUNS + WARMUP + CONC_WARMUP },
  ];
  const rounds = await runSuite("loop", RUNTIMES, phases);
  return sideBySideRounds(RUNTIMES, rounds.map(loopRows));
}

function loopRows(outcomes: Outcomes): MetricRow[] {
  const of = (phase: string, pick: (m: Metrics) => number) => metricOf(outcomes, RUNTIMES, phase, pick);
  const runsOf = (phase: string) => (phase === "conc" ? CONC_RUNS : RUNS);
  const perRun =
    (key: string, phase = "seq") =>
    (m: Metrics) =>
      Number(m[key]) / runsOf(phase);
  const perTurnUs =
    (key: string, phase = "seq") =>
    (m: Metrics) =>
      (Number(m[key]) * 1000) / (runsOf(phase) * TURNS);
  const minusBaseline = (values: MetricRow["values"]): MetricRow["values"] => {
    const base = values.baseline;
    const out: MetricRow["values"] = {};
    for (const [id, v] of Object.entries(values))
      out[id as RuntimeId] = typeof v === "number" && typeof base === "number" ? v - base : v;
    return out;
  };
  return [
    {
      metric: `sequential (${RUNS} runs x ${TURNS} calls per round): wall ms/run`,
      values: of("seq", perRun("wallMs")),
      digits: 2,
    },
    { metric: "sequential: cpu ms/run", values: of("seq", perRun("cpuMs")), digits: 2 },
    { metric: "sequential: cpu µs/turn", values: of("seq", perTurnUs("cpuMs")) },
    {
      metric: "sequential: overhead µs/turn (cpu - baseline)",
      values: minusBaseline(of("seq", perTurnUs("cpuMs"))),
      vsBaseline: false,
    },
    {
      metric: "sequential: overhead µs/turn (wall - baseline)",
      values: minusBaseline(of("seq", perTurnUs("wallMs"))),
      vsBaseline: false,
    },
    { metric: "sequential: peak RSS MiB", values: of("seq", (m) => Number(m.peakRssMiB)) },
    {
      metric: `concurrent (${CONC_RUNS} at once): wall ms total`,
      values: of("conc", (m) => Number(m.wallMs)),
      digits: 0,
    },
    { metric: "concurrent: cpu ms/run", values: of("conc", perRun("cpuMs", "conc")), digits: 2 },
    {
      metric: "concurrent: overhead µs/turn (cpu - baseline)",
      values: minusBaseline(of("conc", perTurnUs("cpuMs", "conc"))),
      vsBaseline: false,
    },
    { metric: "concurrent: peak RSS MiB", values: of("conc", (m) => Number(m.peakRssMiB)) },
    { metric: "server cpu ms/run, sequential", values: of("seq", perRun("serverCpuMs")), noRatio: true },
    {
      metric: "server cpu ms/run, concurrent",
      values: of("conc", perRun("serverCpuMs", "conc")),
      noRatio: true,
    },
    { metric: "RSS MiB after load + setup", values: of("seq", (m) => Number(m.rssAfterSetupMiB)) },
    ...statusRows(outcomes, RUNTIMES),
  ];
}
