// Workload 4, concurrency: SESSIONS sessions at once in one process against a paced server
// (400 ms between chunks; each session is a tool call and a streamed answer, 14 chunks, about
// 6 s); sessions arrive 10 every 20 ms, so all are running within about 2 s. The pace keeps the
// bare baseline well under one core, so event-loop delay shows what a runtime adds. The server holds
// every final answer after its first chunk until the worker has seen that chunk in all sessions:
// at that moment every session is alive with its whole transcript and an open stream, and the
// worker takes a garbage-collected heap figure. Event-loop delay (perf_hooks
// monitorEventLoopDelay, 10 ms resolution) is sampled over the whole run except that forced GC;
// the reported p99 is the larger of the two intervals' p99s, an upper bound of the combined p99.

import { monitorEventLoopDelay } from "node:perf_hooks";
import type { Rows } from "../benches.js";
import { promptFor, runId, WARMUP_BASE } from "../peers/script.js";
import type { Metrics } from "./harness.js";
import { checkedRun } from "./loop.js";
import { gc, peakRssMiB } from "./stats.js";
import { metricOf, type Outcomes, runSuite, selectedRuntimes, statusRows } from "./suite.js";
import { type MetricRow, sideBySideRounds } from "./table.js";
import type { Phase } from "./worker.js";

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 1000);
const WARMUP = 10;
const BARRIER_WAIT_MS = 90_000;
const ARRIVAL_BATCH = 10;
const ARRIVAL_EVERY_MS = 20;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const RUNTIMES = selectedRuntimes(["baseline", "tern", "pi", "vercel-ai", "openai-agents"]);

export const PHASES: Record<string, Phase> = {
  async sessions(context) {
    // Warm-up runs at once: the server paces them too (about 6 s each).
    await Promise.all(Array.from({ length: WARMUP }, (_, i) => checkedRun(context, WARMUP_BASE + i)));
    gc();
    const before = process.memoryUsage();
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    loopDelay.enable();

    let atBarrier = 0;
    let settled = 0;
    let signalBarrier!: () => void;
    const barrier = new Promise<void>((resolve) => {
      signalBarrier = resolve;
    });
    const check = () => {
      if (atBarrier + settled >= SESSIONS) signalBarrier();
    };
    const session = async (i: number) => {
      let text = "";
      let seen = false;
      try {
        const { answer } = await context.run(promptFor("concurrency", runId(i)), {
          onText: (delta) => {
            text += delta;
            if (!seen) {
              seen = true;
              atBarrier++;
              check();
            }
          },
        });
        if (text !== context.script.answer || answer !== context.script.answer)
          throw new Error(`session ${i}: wrong answer`);
      } finally {
        if (!seen) settled++;
        check();
      }
    };
    // Sessions arrive like requests at a server: 10 every 20 ms, all started within about 2 s.
    const sessions: Promise<void>[] = [];
    for (let i = 0; i < SESSIONS; i++) {
      if (i > 0 && i % ARRIVAL_BATCH === 0) await sleep(ARRIVAL_EVERY_MS);
      const pending = session(i);
      pending.catch(() => {}); // reported below through allSettled; no unhandled rejection meanwhile
      sessions.push(pending);
    }
    const failed = Promise.allSettled(sessions).then((all) => all.find((r) => r.status === "rejected"));
    const timeout = new Promise<"timeout">((resolve) =>
      setTimeout(() => resolve("timeout"), BARRIER_WAIT_MS).unref(),
    );
    if ((await Promise.race([barrier, timeout])) === "timeout")
      throw new Error(
        `only ${atBarrier}/${SESSIONS} sessions reached the answer in ${BARRIER_WAIT_MS / 1000} s`,
      );
    const toBarrierMs = performance.now() - started;
    loopDelay.disable();

    gc();
    const atPeak = process.memoryUsage();
    const afterDelay = monitorEventLoopDelay({ resolution: 10 });
    afterDelay.enable();
    await fetch(`${context.origin}/_release/${context.lane}`, { method: "POST" });
    const failure = await failed;
    afterDelay.disable();
    if (failure?.status === "rejected") throw failure.reason;
    const wallMs = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    return {
      cpuMs: (cpu.user + cpu.system) / 1000,
      heapKiBPerSession: (atPeak.heapUsed - before.heapUsed) / 1024 / SESSIONS,
      rssKiBPerSession: (atPeak.rss - before.rss) / 1024 / SESSIONS,
      peakRssKiBPerSession: (peakRssMiB() * 1024 * 1024 - before.rss) / 1024 / SESSIONS,
      eldP99Ms: Math.max(loopDelay.percentile(99), afterDelay.percentile(99)) / 1e6,
      eldMaxMs: Math.max(loopDelay.max, afterDelay.max) / 1e6,
      toBarrierMs,
      wallMs,
      peakRssMiB: peakRssMiB(),
    } satisfies Metrics;
  },
};

export async function concurrencyBench(): Promise<Rows> {
  const rounds = await runSuite("concurrency", RUNTIMES, [
    { phase: "sessions", expectedRuns: SESSIONS + WARMUP },
  ]);
  return sideBySideRounds(RUNTIMES, rounds.map(concurrencyRows));
}

function concurrencyRows(outcomes: Outcomes): MetricRow[] {
  const of = (key: string, scale = 1) =>
    metricOf(outcomes, RUNTIMES, "sessions", (m: Metrics) => Number(m[key]) * scale);
  const rows: MetricRow[] = [
    {
      metric: `live heap KiB / session (${SESSIONS} sessions, GC'd, all mid-answer)`,
      values: of("heapKiBPerSession"),
    },
    { metric: "RSS growth KiB / session (same moment)", values: of("rssKiBPerSession") },
    { metric: "peak RSS growth KiB / session", values: of("peakRssKiBPerSession") },
    { metric: "event loop delay p99 ms", values: of("eldP99Ms"), digits: 2 },
    { metric: "event loop delay max ms", values: of("eldMaxMs"), digits: 1 },
    { metric: "all sessions mid-answer after ms", values: of("toBarrierMs"), digits: 0 },
    { metric: "client cpu s (whole phase)", values: of("cpuMs", 1 / 1000), digits: 2 },
    { metric: "server cpu s (whole phase)", values: of("serverCpuMs", 1 / 1000), digits: 2, noRatio: true },
    { metric: "wall s (whole phase)", values: of("wallMs", 1 / 1000), digits: 1, noRatio: true },
    { metric: "peak RSS MiB (process)", values: of("peakRssMiB") },
    ...statusRows(outcomes, RUNTIMES),
  ];
  return rows;
}
