export {
  type AnswerMode,
  type AnswerSynthesisOptions,
  answerSynthesis,
  DEFAULT_SYNTHESIS_RESULT_CHARS,
  SYNTHESIS_SYSTEM_PROMPT,
  TRUNCATION_MARK,
  traceText,
} from "./answer-synthesis.js";
export { artifactNote, artifactOf, readArtifact } from "./artifacts.js";
export { type AutopilotOptions, autopilot, DEFAULT_MAX_NUDGES, NUDGE_TEXT } from "./autopilot.js";
export {
  type CompletionCheckOptions,
  completionCheck,
  completionCheckText,
  DEFAULT_COMPLETION_CHECK_MIN_TOOLS,
} from "./completion-check.js";
export {
  type CycleDetectionOptions,
  canonicalJson,
  cycleDetection,
  cycleWarningText,
  DEFAULT_CYCLE_THRESHOLD,
} from "./cycle-detection.js";
export { INTERRUPT_TAG, interrupts, interruptText } from "./interrupts.js";
export { DEFAULT_MAX_ITERATIONS, type IterationLimitOptions, iterationLimit } from "./iteration-limit.js";
export { type JsonModeOptions, REFORMAT_REQUEST, toolModePolicy } from "./json-mode.js";
export { jsonContext, jsonSystemPrompt } from "./json-prompt.js";
export { type JsonReply, readJsonReply } from "./json-reply.js";
export { type ReactOptions, reactPolicies } from "./react.js";
export {
  DEFAULT_REFLECTION_INTERVAL,
  type ReflectionOptions,
  reflectionText,
  selfReflection,
} from "./reflection.js";
export { catalog, catalogLine, DEFAULT_CATALOG_LINE_CHARS } from "./tool-catalog.js";
export { resolveToolMode, type ToolMode, type ToolModeOptions } from "./tool-mode.js";
export { isPolicyTool, REQUEST_TOOLS_TOOL, TASK_COMPLETE_TOOL } from "./tool-names.js";
export {
  DEFAULT_MAX_SELECTED_TOOLS,
  DEFAULT_TOOL_SELECTION_THRESHOLD,
  type ToolSelectionOptions,
  toolSelection,
} from "./tool-selection.js";
