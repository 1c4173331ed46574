// Workload 3, many tools: 40 tools registered, a 6-turn task (5 tool calls, then the answer).
// Prompt tokens are counted at the server over every request of the task, auxiliary calls (tern's
// tool selection) included, with the one chars/4 estimator. tern runs twice: plain (every tool
// on every turn, like the peers) and with its tool-selection policy.

import type { Rows } from "../benches.js";
import type { RuntimeId } from "../peers/runtimes.js";
import { WARMUP_BASE } from "../peers/script.js";
import type { Metrics } from "./harness.js";
import { checkedRun } from "./loop.js";
import { timed } from "./stats.js";
import { metricOf, type Outcomes, runSuite, selectedRuntimes, statusRows } from "./suite.js";
import { type MetricRow, sideBySideRounds } from "./table.js";
import type { Phase } from "./worker.js";

const MEASURED_RUNS = 3;
/** Warm-up runs before the CPU figure: the first runs pay module JIT and schema compilation. */
const WARMUP_RUNS = 5;
const RUNS = MEASURED_RUNS + WARMUP_RUNS;
const RUNTIMES = selectedRuntimes([
  "baseline",
  "tern",
  "tern-select",
  "pi",
  "vercel-ai",
  "vercel-select",
  "openai-agents",
]);

export const PHASES: Record<string, Phase> = {
  async task(context) {
    for (let i = 0; i < WARMUP_RUNS; i++) await checkedRun(context, WARMUP_BASE + i);
    const timing = await timed(async () => {
      for (let i = 0; i < MEASURED_RUNS; i++) await checkedRun(context, i);
    });
    return { wallMs: timing.wallMs / MEASURED_RUNS, cpuMs: timing.cpuMs / MEASURED_RUNS };
  },
};

export async function manyToolsBench(): Promise<Rows> {
  const rounds = await runSuite("tools", RUNTIMES, [{ phase: "task", expectedRuns: RUNS }]);
  return sideBySideRounds(
    RUNTIMES,
    rounds.map((round) => toolsRows(round, RUNTIMES)),
    ["tern", "tern-select"],
    [["tern-select", "vercel-select"]],
  );
}

const IMPERFECT_RUNTIMES = selectedRuntimes(["baseline", "tern-select", "vercel-select"]);

/**
 * The same task when the selector's reply misses a needed tool (and has a padded name, a
 * duplicate and an unknown name): tern+select loads the missing tool with request_tools (the
 * server calls it first); vercel-ai has no tool to do that with.
 */
export async function manyToolsImperfectBench(): Promise<Rows> {
  const rounds = await runSuite("tools-imperfect", IMPERFECT_RUNTIMES, [
    { phase: "task", expectedRuns: RUNS },
  ]);
  return sideBySideRounds(
    IMPERFECT_RUNTIMES,
    rounds.map((round) => toolsRows(round, IMPERFECT_RUNTIMES)),
    ["tern-select"],
    [["tern-select", "vercel-select"]],
  );
}

function toolsRows(outcomes: Outcomes, RUNTIMES: RuntimeId[]): MetricRow[] {
  const of = (pick: Parameters<typeof metricOf>[3]) => metricOf(outcomes, RUNTIMES, "task", pick);
  const perTask = (key: "promptTokens" | "requests" | "structuredRequests" | "completionTokens") =>
    of((_m, o) => o.report[key] / RUNS);
  const rows: MetricRow[] = [
    { metric: "prompt tokens / task (server, chars/4)", values: perTask("promptTokens"), digits: 0 },
    { metric: "model calls / task", values: perTask("requests"), noRatio: true },
    { metric: "of which structured (tool selection)", values: perTask("structuredRequests"), noRatio: true },
    {
      metric: "tools offered / call",
      values: of((_m, o) => o.report.toolsOffered / o.report.requests),
      noRatio: true,
    },
    { metric: "completion tokens / task", values: perTask("completionTokens"), noRatio: true, digits: 0 },
    {
      metric: `client cpu ms / task (after ${WARMUP_RUNS} warm-up tasks)`,
      values: of((m: Metrics) => Number(m.cpuMs)),
      digits: 2,
    },
    ...statusRows(outcomes, RUNTIMES),
  ];
  return rows;
}
