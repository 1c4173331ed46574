// The completion checklist: once per run, when the model gives its final answer after using at
// least N tools, it is asked to check the answer before it is accepted. It then answers again
// (accepted) or goes back to its tools.

import { userMessage } from "../messages.js";
import type { LoopPolicy } from "../policy.js";
import { quoteGoal } from "./quote.js";
import { setting } from "./setting.js";
import { realCalls } from "./tool-names.js";

export const DEFAULT_COMPLETION_CHECK_MIN_TOOLS = 3;

export interface CompletionCheckOptions {
  /** Real tool calls a run needs before the check applies. Default 3. */
  minTools?: number;
}

export function completionCheckText(goal: string): string {
  return [
    "[COMPLETION CHECK] Before you finish, check your answer:",
    `1. Does it fully answer the question: ${quoteGoal(goal)}?`,
    "2. Were the key facts verified by tool results rather than assumed?",
    "3. Does anything in it contradict the tool results?",
    "If it passes, give your final answer again, complete. If not, continue with the tools you need.",
  ].join("\n");
}

export function completionCheck(options: CompletionCheckOptions = {}): LoopPolicy {
  const minTools = setting(options.minTools, DEFAULT_COMPLETION_CHECK_MIN_TOOLS, 0);
  return {
    name: "completion_check",
    start: () => {
      let calls = 0;
      let asked = false;
      return {
        afterToolBatch: (_run, batch) => {
          calls += realCalls(batch.calls).length;
        },
        onFinalAnswer: (run) => {
          if (asked || calls < minTools) return undefined;
          asked = true;
          return [
            { kind: "completion_check", message: userMessage(completionCheckText(run.prompt), run.now()) },
          ];
        },
      };
    },
  };
}
