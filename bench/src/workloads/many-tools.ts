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
import { metricOf, runSuite, selectedRuntimes, statusRows } from "./suite.js";
import { type MetricRow, sideBySide } from "./table.js";
import type { Phase } from "./worker.js";

const MEASURED_RUNS = 3;
const RUNS = MEASURED_RUNS + 1; // one warm-up
const RUNTIMES = selectedRuntimes(["baseline", "tern", "tern-select", "pi", "vercel-ai", "openai-agents"]);

export const PHASES: Record<string, Phase> = {
  async task(context) {
    await checkedRun(context, WARMUP_BASE);
    const timing = await timed(async () => {
      for (let i = 0; i < MEASURED_RUNS; i++) await checkedRun(context, i);
    });
    return { wallMs: timing.wallMs / MEASURED_RUNS, cpuMs: timing.cpuMs / MEASURED_RUNS };
  },
};

export async function manyToolsBench(): Promise<Rows> {
  const outcomes = await runSuite("tools", RUNTIMES, [
    { phase: "task", expectedRuns: RUNS, timeoutMs: 60_000 },
  ]);
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
    { metric: "client cpu ms / task", values: of((m: Metrics) => Number(m.cpuMs)), digits: 2 },
    ...statusRows(outcomes, RUNTIMES),
  ];
  const subjects: RuntimeId[] = ["tern", "tern-select"];
  return sideBySide(RUNTIMES, rows, subjects);
}
