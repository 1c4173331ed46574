// The standard policy set (FIM One's ReAct engine plus Copilot's autopilot) in its working order.

import type { LoopPolicy } from "../policy.js";
import { type AnswerMode, type AnswerSynthesisOptions, answerSynthesis } from "./answer-synthesis.js";
import { type AutopilotOptions, autopilot } from "./autopilot.js";
import { type CompletionCheckOptions, completionCheck } from "./completion-check.js";
import { type CycleDetectionOptions, cycleDetection } from "./cycle-detection.js";
import { interrupts } from "./interrupts.js";
import { iterationLimit } from "./iteration-limit.js";
import { type JsonModeOptions, toolModePolicy } from "./json-mode.js";
import { type ReflectionOptions, selfReflection } from "./reflection.js";
import { type ToolSelectionOptions, toolSelection } from "./tool-selection.js";

export interface ReactOptions extends JsonModeOptions {
  /** Default 50. */
  maxIterations?: number;
  /** "direct" (default): the last assistant message is the answer. "synthesize": a separate streamed call writes it. */
  answerMode?: AnswerMode;
  synthesis?: AnswerSynthesisOptions;
  /** false turns it off. */
  toolSelection?: ToolSelectionOptions | false;
  reflection?: ReflectionOptions | false;
  cycleDetection?: CycleDetectionOptions | false;
  completionCheck?: CompletionCheckOptions | false;
  /** Steering messages become one pinned `[USER INTERRUPT]` message. Default true. */
  interrupts?: boolean;
  /** The `task_complete` tool and the nudge. Default off. */
  autopilot?: AutopilotOptions | boolean;
}

/**
 * The standard set. Order matters where policies meet: a JSON reformat is asked before the
 * completion checklist, the checklist before the autopilot nudge, and synthesis writes the answer last.
 */
export function reactPolicies(options: ReactOptions = {}): LoopPolicy[] {
  const policies: LoopPolicy[] = [
    toolModePolicy(options),
    iterationLimit({ maxIterations: options.maxIterations }),
  ];
  if (options.interrupts !== false) policies.push(interrupts());
  if (options.toolSelection !== false) policies.push(toolSelection(options.toolSelection));
  if (options.reflection !== false) policies.push(selfReflection(options.reflection));
  if (options.cycleDetection !== false) policies.push(cycleDetection(options.cycleDetection));
  if (options.completionCheck !== false) policies.push(completionCheck(options.completionCheck));
  if (options.autopilot) policies.push(autopilot(options.autopilot === true ? {} : options.autopilot));
  if (options.answerMode === "synthesize") policies.push(answerSynthesis(options.synthesis));
  return policies;
}
