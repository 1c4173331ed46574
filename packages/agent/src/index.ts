export {
  Agent,
  type AgentListener,
  type AgentOptions,
  type AgentState,
  type PromptOptions,
  type QueueMode,
  type TurnUsage,
} from "./agent.js";
export { defineTool } from "./define-tool.js";
export { AgentEventStream } from "./event-stream.js";
export { globMatcher } from "./glob.js";
export {
  DEFAULT_HOOK_TIMEOUT_MS,
  type HookFailureReporter,
  HookRegistry,
  type HookRegistryOptions,
  type PreToolUseDecision,
  type PromptDecision,
} from "./hooks.js";
export {
  agentLoop,
  agentLoopContinue,
  assertContinuable,
  runAgentLoop,
  runAgentLoopContinue,
} from "./loop.js";
export { assistantText, defaultConvertToLlm, isLlmMessage, messageText, userMessage } from "./messages.js";
export { callModel, type ModelCallEnv } from "./model-call.js";
export {
  ABORTED_TOOL_TEXT,
  type BatchEnv,
  type BatchResult,
  executeToolBatch,
  TRUNCATED_CALL_TEXT,
  unexecutedResults,
} from "./tool-batch.js";
export { NO_OUTPUT, normalizeToolResult } from "./tool-result.js";
export { toolSpec, toolSpecs, validateArguments } from "./tool-schema.js";
export * from "./types.js";
