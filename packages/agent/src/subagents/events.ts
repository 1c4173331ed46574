// The sub-agent family: a `task` call's sub-agent starting and ending. Emitted by the task tool
// (`task-tool.ts`), which forwards the sub-agent's own core events marked with the call's id
// (`parentToolCallId`); the CLI's sub-agent lines, the FIM and Copilot mappers read it, and
// `NestedRuns` folds the marked events under the call.

import type { Usage } from "@tern/ai";
import { familyGuard } from "../events.js";

export type SubagentStatus = "done" | "failed" | "aborted";

export type SubagentEvent =
  /**
   * A `task` call started a sub-agent (`parentToolCallId` is that call; `depth` 1 for the run's own
   * sub-agents). `stepId` (plan mode): the step whose run made the call.
   */
  | {
      type: "subagent_start";
      parentToolCallId: string;
      agent: string;
      task: string;
      model: string;
      depth: number;
      timestamp: number;
      stepId?: string;
    }
  /** The sub-agent ended; `usage` is its own (already counted in the run's total through its model calls). */
  | {
      type: "subagent_end";
      parentToolCallId: string;
      agent: string;
      status: SubagentStatus;
      answer: string;
      error?: string;
      turns: number;
      usage: Usage;
      durationMs: number;
      stepId?: string;
    };

declare module "../events.js" {
  interface AgentEventFamilies {
    subagent: SubagentEvent;
  }
}

export const isSubagentEvent: (event: { type: string }) => event is SubagentEvent =
  familyGuard<SubagentEvent>({
    subagent_start: true,
    subagent_end: true,
  });
