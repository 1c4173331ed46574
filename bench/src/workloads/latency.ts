// Workload 2, streaming latency: one answer of 2,000 chunks of 4 characters (2,000 tokens by the
// chars/4 estimator), paced 1 ms apart. Two delays per chunk, each the difference of two stamps
// on one clock, taken chunk by chunk before any percentile (timeline.ts):
// - server write -> consumer callback: the server stamps each chunk just before writing it and
//   keeps the stamps (GET /_sendtimes, a side channel, so the text stays a plain answer); the
//   consumer's text callback stamps each chunk as it completes. Both from `process.hrtime.bigint()`,
//   which on Linux (and macOS) reads the system-wide monotonic clock: the same clock in both
//   processes, no offset to estimate. The worker checks that first (a server stamp must fall
//   between two of its own).
// - socket read -> consumer callback: both stamps in the worker, the first where the chunk's bytes
//   entered JavaScript (socket-tap.ts). That is what the runtime itself adds; the baseline's figure
//   is the floor of fetch + split + JSON.parse, shown next to it, never subtracted from it.

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
import { tapReads } from "./socket-tap.js";
import { metricOf, type Outcomes, runSuite, selectedRuntimes, statusRows } from "./suite.js";
import { type MetricRow, sideBySideRounds } from "./table.js";
import { arrivalsOf, delaysUs, summarize } from "./timeline.js";
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

/** The chunks as they appear on the wire: each in its own Chat Completions delta. */
const WIRE_CHUNKS = Array.from(
  { length: LATENCY_CHUNKS },
  (_, i) => `"content":${JSON.stringify(latencyChunk(i))}`,
);

/** One streamed answer: each chunk's arrival at the socket and at the text callback (ns), by index. */
async function arrivals(context: PhaseContext, n: number): Promise<{ read: bigint[]; callback: bigint[] }> {
  const callback: bigint[] = [];
  let text = "";
  const tap = tapReads(Number(new URL(context.origin).port));
  try {
    await context.run(promptFor("latency", runId(n)), {
      onText: (delta) => {
        const now = process.hrtime.bigint();
        text += delta;
        // Every chunk completed by this delta arrived now (a runtime that merges chunks delays the earlier ones).
        while ((callback.length + 1) * LATENCY_CHUNK_CHARS <= text.length) callback.push(now);
      },
    });
  } finally {
    tap.close();
  }
  if (text !== context.script.answer) throw new Error(`run ${n}: streamed text differs from the script`);
  for (let i = 0; i < LATENCY_CHUNKS; i += 97)
    if (text.slice(i * LATENCY_CHUNK_CHARS, (i + 1) * LATENCY_CHUNK_CHARS) !== latencyChunk(i))
      throw new Error(`run ${n}: chunk ${i} out of place`);
  return { read: arrivalsOf(tap.reads, WIRE_CHUNKS), callback };
}

async function sendTimes(context: PhaseContext, n: number): Promise<bigint[]> {
  const response = await fetch(`${context.origin}/_sendtimes/${context.lane}/${runId(n)}`);
  return ((await response.json()) as string[]).map((ns) => BigInt(ns));
}

export const PHASES: Record<string, Phase> = {
  async stream(context) {
    await clockCheck(context.origin);
    await arrivals(context, WARMUP_BASE); // warm-up
    const endToEnd: number[] = [];
    const inRuntime: number[] = [];
    for (let n = 0; n < MEASURED_RUNS; n++) {
      const { read, callback } = await arrivals(context, n);
      const sent = await sendTimes(context, n);
      endToEnd.push(...delaysUs(sent, callback));
      inRuntime.push(...delaysUs(read, callback));
    }
    const wire = summarize(endToEnd);
    const own = summarize(inRuntime);
    return {
      p50Us: wire.p50Us,
      p99Us: wire.p99Us,
      maxUs: wire.maxUs,
      ownP50Us: own.p50Us,
      ownP99Us: own.p99Us,
      ownMaxUs: own.maxUs,
      samples: endToEnd.length,
    };
  },
};

export async function latencyBench(): Promise<Rows> {
  const rounds = await runSuite("latency", RUNTIMES, [{ phase: "stream", expectedRuns: MEASURED_RUNS + 1 }]);
  return sideBySideRounds(RUNTIMES, rounds.map(latencyRows));
}

function latencyRows(outcomes: Outcomes): MetricRow[] {
  const of = (key: string) => metricOf(outcomes, RUNTIMES, "stream", (m: Metrics) => Number(m[key]));
  const rows: MetricRow[] = [
    {
      metric: `server write -> consumer callback, p50 µs (${MEASURED_RUNS} x ${LATENCY_CHUNKS} chunks)`,
      values: of("p50Us"),
    },
    { metric: "server write -> consumer callback, p99 µs", values: of("p99Us") },
    { metric: "server write -> consumer callback, max µs", values: of("maxUs"), digits: 0 },
    { metric: "socket read -> consumer callback (the runtime's own), p50 µs", values: of("ownP50Us") },
    { metric: "socket read -> consumer callback, p99 µs", values: of("ownP99Us") },
    { metric: "socket read -> consumer callback, max µs", values: of("ownMaxUs"), digits: 0 },
    { metric: "samples", values: of("samples"), noRatio: true, digits: 0 },
    ...statusRows(outcomes, RUNTIMES),
  ];
  return rows;
}
