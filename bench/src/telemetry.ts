// What tracing costs a run: the same 10-tool-turn run (faux provider at zero delay, so nothing but
// tern runs) with telemetry off, on with only @opentelemetry/api (no SDK installed: the default a
// library user gets), and on with a real SDK (BasicTracerProvider + BatchSpanProcessor) exporting
// to an exporter that drops everything, with and without message content. Interleaved rounds so a
// busy machine slows every lane alike; medians per run with the range of the round medians.
import { performance } from "node:perf_hooks";
import type { ExportResult } from "@opentelemetry/core";
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
} from "@opentelemetry/sdk-trace-base";
import { Agent, type TelemetryOptions } from "@tern/agent";
import { echo, scriptedModel, TURNS } from "./agent-loop.js";
import type { Rows } from "./benches.js";
import { round } from "./measure.js";
import { median } from "./workloads/table.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const RUNS_PER_ROUND = 40;
const WARMUP_RUNS = 30;

/** Counts what the SDK hands it and keeps nothing: the SDK's own cost without any network. */
class DroppingExporter implements SpanExporter {
  spans = 0;
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.spans += spans.length;
    done({ code: 0 });
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

type Lane = "off" | "api only (no SDK)" | "SDK, dropping exporter" | "SDK + content";

export async function telemetryBench(): Promise<Rows> {
  const exporter = new DroppingExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter)] });
  const tracer = provider.getTracer("bench");
  const lanes: Record<Lane, TelemetryOptions | false | undefined> = {
    off: false,
    "api only (no SDK)": undefined,
    "SDK, dropping exporter": { tracer },
    "SDK + content": { tracer, captureContent: true },
  };
  const { faux, reply } = scriptedModel();
  const oneRun = async (telemetry: TelemetryOptions | false | undefined): Promise<number> => {
    for (let i = 0; i <= TURNS; i++) faux.push(reply);
    const agent = new Agent({
      model: faux.model,
      tools: [echo],
      ...(telemetry !== undefined && { telemetry }),
    });
    const start = performance.now();
    const result = await agent.prompt("Run the steps.");
    const us = (performance.now() - start) * 1000;
    if (result.stopReason !== "stop")
      throw new Error(`run ended with ${result.stopReason}: ${result.errorMessage}`);
    return us;
  };

  const names = Object.keys(lanes) as Lane[];
  for (const lane of names) for (let i = 0; i < WARMUP_RUNS; i++) await oneRun(lanes[lane]);
  await provider.forceFlush();
  exporter.spans = 0;
  const perRun = Object.fromEntries(names.map((lane) => [lane, [] as number[]])) as Record<Lane, number[]>;
  const roundMedians = Object.fromEntries(names.map((lane) => [lane, [] as number[]])) as Record<
    Lane,
    number[]
  >;
  for (let r = 0; r < ROUNDS; r++) {
    // Rotate the order so no lane always runs first (or last) in a round.
    const order = names.map((_, i) => names[(i + r) % names.length]!);
    for (const lane of order) {
      const times: number[] = [];
      for (let i = 0; i < RUNS_PER_ROUND; i++) times.push(await oneRun(lanes[lane]));
      perRun[lane].push(...times);
      roundMedians[lane].push(median(times));
    }
  }
  await provider.forceFlush();
  const sdkRuns = ROUNDS * RUNS_PER_ROUND * 2;
  await provider.shutdown();

  const range = (values: number[]) => `${round(Math.min(...values), 0)}–${round(Math.max(...values), 0)}`;
  return names.map((lane) => {
    const overheads = roundMedians[lane].map((us, i) => us - roundMedians.off[i]!);
    return {
      lane,
      "median µs/run": round(median(perRun[lane]), 0),
      "round medians min–max": range(roundMedians[lane]),
      "overhead vs off µs/run": round(median(overheads), 0),
      "overhead min–max": range(overheads),
      "spans/run": lane.startsWith("SDK") ? round(exporter.spans / sdkRuns, 1) : 0,
      runs: perRun[lane].length,
    };
  });
}
