// Self-reflection: after every N real tool calls (policy tools and parse retries do not count), a
// message asks the model to check it is still on course for the original goal. It goes after all
// results of the batch that crossed the mark, before the next model call.

import { userMessage } from "../messages.js";
import type { LoopPolicy } from "../policy.js";
import { quoteGoal } from "./quote.js";
import { setting } from "./setting.js";
import { realCalls } from "./tool-names.js";

export const DEFAULT_REFLECTION_INTERVAL = 6;

export interface ReflectionOptions {
  /** Real tool calls between reflections. Default 6. */
  every?: number;
}

export function reflectionText(goal: string, calls: number): string {
  return [
    `[SELF-REFLECTION] You have made ${calls} tool calls. Before the next step, check:`,
    `1. Are you still on course for the original goal: ${quoteGoal(goal)}?`,
    "2. Are you repeating yourself (the same calls, the same results)?",
    "3. What is the most direct next step?",
    "4. Do you already know enough to answer? If so, answer now.",
  ].join("\n");
}

export function selfReflection(options: ReflectionOptions = {}): LoopPolicy {
  const every = setting(options.every, DEFAULT_REFLECTION_INTERVAL);
  return {
    name: "self_reflection",
    start: () => {
      let calls = 0;
      return {
        afterToolBatch: (run, batch) => {
          const before = calls;
          calls += realCalls(batch.calls).length;
          if (Math.floor(calls / every) === Math.floor(before / every)) return undefined;
          return [{ kind: "reflection", message: userMessage(reflectionText(run.prompt, calls), run.now()) }];
        },
      };
    },
  };
}
