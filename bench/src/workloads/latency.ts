// Workload 2, streaming latency: one answer of 2,000 chunks of 4 characters (2,000 tokens by the
// chars/4 estimator), paced 1 ms apart. The server stamps each chunk with its monotonic clock
// just before writing it and keeps the stamps (GET /_sendtimes, a side channel, so the text
// stays a plain answer); the consumer's text callback stamps each chunk as it completes. Delay =
// arrival - send, both from `process.hrtime.bigint()`, which on Linux (and macOS) reads the
// system-wide monotonic clock: the same clock in both processes, no offset to estimate. The
// worker checks that before measuring (a server stamp must fall between two of its own).

import type { Rows } from "../benches.js";
import {
  LATENCY_CHUNK_CHARS,
  LATENCY_CHUNKS,
  latencyChunk,
  promptFor,
  runId,
  WARMUP_BASE,
} from "../peers/script.js";
import type { Metrics } from "./harness.js";
import { percentile } from "./stats.js";
import { metricOf, type Outcomes, runSuite, selectedRuntimes, statusRows } from "./suite.js";
import { type MetricRow, sideBySideRounds } from "./table.js";
import type { Phase, PhaseContext } from "./worker.js";

const MEASURED_RUNS = 1; // per round: 10 rounds give 10 x 2,000 samples
const RUNTIMES = selectedRuntimes(["baseline", "tern", "pi", "vercel-ai", "openai-agents"]);

async function clockCheck(origin: string): Promise<void> {
  for (let i = 0; i < 3; i++) {
    const before = process.hrtime.bigint();
    const { ns } = (await (await fetch(`${origin}/_clock`)).json()) as { ns: string };
    const after = process.hrtime.bigint();
    if (BigInt(ns) < before || BigInt(ns) > after)
      throw new Error(`clocks differ: server ${ns} not within [${before}, ${after}]`);
  }
}

/** One streamed answer; returns each chunk's arrival time (ns) by chunk index. */
async function arrivals(context: PhaseContext, n: number): Promise<bigint[]> {
  const times: bigint[] = [];
  let text = "";
  await context.run(promptFor("latency", runId(n)), {
    onText: (delta) => {
      const now = process.hrtime.bigint();
      text += delta;
      // Every chunk completed by this delta arrived now (a runtime that merges chunks delays the earlier ones).
      while ((times.length + 1) * LATENCY_CHUNK_CHARS <= text.length) times.push(now);
    },
  });
  if (text !== context.script.answer) throw new Error(`run ${n}: streamed text differs from the script`);
  for (let i = 0; i < LATENCY_CHUNKS; i += 97)
    if (text.slice(i * LATENCY_CHUNK_CHARS, (i + 1) * LATENCY_CHUNK_CHARS) !== latencyChunk(i))
      throw new Error(`run ${n}: chunk ${i} out of place`);
  return times;
}

async function sendTimes(context: PhaseContext, n: number): Promise<bigint[]> {
  const response = await fetch(`${context.origin}/_sendtimes/${context.lane}/${runId(n)}`);
  return ((await response.json()) as string[]).map((ns) => BigInt(ns));
}

export const PHASES: Record<string, Phase> = {
  async stream(context) {
    await clockCheck(context.origin);
    await arrivals(context, WARMUP_BASE); // warm-up
    const delaysUs: number[] = [];
    for (let n = 0; n < MEASURED_RUNS; n++) {
      const arrived = await arrivals(context, n);
      const sent = await sendTimes(context, n);
      if (sent.length !== arrived.length)
        throw new Error(`run ${n}: ${sent.length} sent, ${arrived.length} arrived`);
      for (let i = 0; i < sent.length; i++) delaysUs.push(Number(arrived[i]! - sent[i]!) / 1000);
    }
    return {
      p50Us: percentile(delaysUs, 50),
      p99Us: percentile(delaysUs, 99),
      maxUs: percentile(delaysUs, 100),
      samples: delaysUs.length,
    };
  },
};

export async function latencyBench(): Promise<Rows> {
  const rounds = await runSuite("latency", RUNTIMES, [{ phase: "stream", expectedRuns: MEASURED_RUNS + 1 }]);
  return sideBySideRounds(RUNTIMES, rounds.map(latencyRows));
}

function latencyRows(outcomes: Outcomes): MetricRow[] {
  const of = (pick: (m: Metrics) => number) => metricOf(outcomes, RUNTIMES, "stream", pick);
  const added = (key: string) => {
    const base = outcomes.baseline?.stream;
    return of((m) => (base?.ok ? Number(m[key]) - Number(base.metrics[key]) : Number.NaN));
  };
  const rows: MetricRow[] = [
    {
      metric: `server write -> consumer callback, p50 µs (${MEASURED_RUNS} x ${LATENCY_CHUNKS} chunks)`,
      values: of((m) => Number(m.p50Us)),
    },
    { metric: "server write -> consumer callback, p99 µs", values: of((m) => Number(m.p99Us)) },
    { metric: "server write -> consumer callback, max µs", values: of((m) => Number(m.maxUs)), digits: 0 },
    { metric: "added by the runtime, p50 µs (minus baseline)", values: added("p50Us"), vsBaseline: false },
    { metric: "added by the runtime, p99 µs (minus baseline)", values: added("p99Us"), vsBaseline: false },
    { metric: "samples", values: of((m) => Number(m.samples)), noRatio: true, digits: 0 },
    ...statusRows(outcomes, RUNTIMES),
  ];
  return rows;
}
