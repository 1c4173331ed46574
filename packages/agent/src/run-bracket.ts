// The run bracket: every run, the loop's and a plan's, opens with `agent_start` and closes with
// `agent_end` carrying its AgentRunResult. Sessions, journals and displays cut runs at these two
// events, so they are written here once: the run id, the start time, the usage from the run's
// tally, the elapsed time, and the error fields only when there is an error to tell.

import type { RunEnv } from "./run-env.js";
import type { AgentMessage, AgentRunResult, AgentStopReason } from "./types.js";

/** How a run ended; the error fields are set only when there is something to say. */
export interface RunEnd {
  stopReason: AgentStopReason;
  errorMessage?: string;
  errorKind?: string;
}

/** What the run itself knows at its end; the bracket adds usage and elapsed time. */
export interface RunOutcome extends RunEnd {
  messages: AgentMessage[];
  answer: string;
  iterations: number;
}

export interface OpenRun {
  readonly runId: string;
  readonly startedAt: number;
  /** Emits `agent_end` with the run's result and returns that result. */
  close(outcome: RunOutcome): Promise<AgentRunResult>;
}

/** Emits `agent_start`; what the run emits from here on belongs to it until `close`. */
export async function openRun(env: Pick<RunEnv, "emit" | "now" | "ids" | "usage">): Promise<OpenRun> {
  const runId = env.ids();
  const startedAt = env.now();
  await env.emit({ type: "agent_start", runId, timestamp: startedAt });
  return {
    runId,
    startedAt,
    async close({ messages, answer, iterations, stopReason, errorMessage, errorKind }) {
      const result: AgentRunResult = {
        messages,
        answer,
        usage: env.usage.snapshot(),
        iterations,
        elapsedMs: env.now() - startedAt,
        stopReason,
      };
      if (errorMessage !== undefined) result.errorMessage = errorMessage;
      if (errorKind !== undefined) result.errorKind = errorKind;
      await env.emit({ type: "agent_end", ...result });
      return result;
    },
  };
}
