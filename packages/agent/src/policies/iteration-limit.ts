// The iteration limit: a run that reaches it without a final answer ends with stop reason
// "max_iterations" and an answer that says so and sums up which tools ran and how they went.

import type { LoopPolicy } from "../policy.js";
import { setting } from "./setting.js";

export const DEFAULT_MAX_ITERATIONS = 50;

export interface IterationLimitOptions {
  /** Turns (model calls of the loop) a run may take. Default 50. */
  maxIterations?: number;
}

export function iterationLimit(options: IterationLimitOptions = {}): LoopPolicy {
  const limit = setting(options.maxIterations, DEFAULT_MAX_ITERATIONS);
  return {
    name: "iteration_limit",
    start: () => {
      const tally = new Map<string, { calls: number; failed: number }>();
      return {
        afterToolBatch: (_run, { results }) => {
          for (const result of results) {
            const entry = tally.get(result.toolName) ?? { calls: 0, failed: 0 };
            entry.calls++;
            if (result.isError) entry.failed++;
            tally.set(result.toolName, entry);
          }
        },
        beforeTurn: (run) => {
          if (run.turn < limit) return undefined;
          return { stopReason: "max_iterations", answer: fallbackAnswer(limit, tally) };
        },
      };
    },
  };
}

function fallbackAnswer(limit: number, tally: Map<string, { calls: number; failed: number }>): string {
  const head = `I stopped after ${limit === 1 ? "1 step" : `${limit} steps`} without reaching a final answer.`;
  if (tally.size === 0) return `${head} No tools were run.`;
  const lines = [...tally].map(([name, { calls, failed }]) => {
    const times = calls === 1 ? "1 call" : `${calls} calls`;
    const outcome =
      failed === 0
        ? calls === 1
          ? "succeeded"
          : "all succeeded"
        : failed === calls
          ? calls === 1
            ? "failed"
            : "all failed"
          : `${failed} failed`;
    return `- ${name}: ${times}, ${outcome}`;
  });
  return `${head} Tools run:\n${lines.join("\n")}`;
}
