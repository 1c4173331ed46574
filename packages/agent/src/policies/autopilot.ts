// Autopilot: the model marks the task done with the `task_complete` tool (a summary). A run that
// would end without it gets a nudge to finish the work, a bounded number of times. The tool call
// emits a `task_complete` event and ends the run (stop reason "terminated", the summary as the
// answer); `agent_end` always follows.

import { userMessage } from "../messages.js";
import type { LoopPolicy, PolicyRun } from "../policy.js";
import type { AnyAgentTool } from "../types.js";
import { setting } from "./setting.js";
import { TASK_COMPLETE_TOOL } from "./tool-names.js";

export const DEFAULT_MAX_NUDGES = 3;

export const NUDGE_TEXT = [
  "[AUTOPILOT] You have not marked the task complete. Stop planning and finish the work now, using your tools.",
  `When everything is done, call ${TASK_COMPLETE_TOOL} with a summary of what you did.`,
  `Do not call ${TASK_COMPLETE_TOOL} early: not while questions are open, errors are unresolved or work remains.`,
].join("\n");

export interface AutopilotOptions {
  /** Nudges a run may get before its answer is accepted anyway. Default 3. */
  maxNudges?: number;
}

export function autopilot(options: AutopilotOptions = {}): LoopPolicy {
  const maxNudges = setting(options.maxNudges, DEFAULT_MAX_NUDGES, 0);
  return {
    name: "autopilot",
    start: (run) => {
      let summary: string | undefined;
      let nudges = 0;
      const tool = taskCompleteTool(run, (text) => {
        summary = text;
      });
      return {
        tools: (tools) => (tools.some((t) => t.name === TASK_COMPLETE_TOOL) ? tools : [...tools, tool]),
        onFinalAnswer: () => {
          if (summary !== undefined || nudges >= maxNudges) return undefined;
          nudges++;
          return [{ kind: "nudge", message: userMessage(NUDGE_TEXT, run.now()) }];
        },
        // Ended by task_complete: the summary is the answer (the message's own text is reasoning).
        // A model that wrote a final answer after it keeps that answer.
        onRunEnd: (_run, end) => {
          if (summary === undefined) return undefined;
          if (end.stopReason !== "terminated" && end.answer.trim() !== "") return undefined;
          return { answer: summary };
        },
      };
    },
  };
}

function taskCompleteTool(run: PolicyRun, done: (summary: string) => void): AnyAgentTool {
  return {
    name: TASK_COMPLETE_TOOL,
    description:
      "Mark the task complete when all work is done. Give a summary of what was done and the outcome. Do not call it while questions are open, errors are unresolved or work remains.",
    parameters: {
      type: "object",
      properties: { summary: { type: "string", description: "What was done and the outcome" } },
      required: ["summary"],
    },
    execute: async ({ summary }: { summary: string }) => {
      done(summary);
      await run.emit({ type: "task_complete", summary });
      return { content: "Task marked complete.", terminate: true };
    },
  };
}
