export { ABORTED_TOOL_TEXT } from "./aborted-tool.js";
export {
  Agent,
  type AgentListener,
  type AgentOptions,
  type AgentState,
  type PromptOptions,
  type QueueMode,
  type TurnUsage,
} from "./agent.js";
export * from "./context/index.js";
export { defineTool } from "./define-tool.js";
export { type ContextUpdateData, contextUpdateData } from "./event-data.js";
export { AgentEventStream } from "./event-stream.js";
export { type FrontMatter, parseFrontMatter } from "./front-matter.js";
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
export { callModel, type ModelCallEnv, type ModelCallExtras } from "./model-call.js";
export * from "./plan/index.js";
export * from "./policies/index.js";
export type {
  LoopPolicy,
  PolicyCallOptions,
  PolicyHooks,
  PolicyInjection,
  PolicyRun,
  PolicyStop,
  RunEndInfo,
  ToolBatch,
} from "./policy.js";
export { type AgentProfile, type ProfileParse, parseAgentProfile } from "./subagents/profile.js";
export {
  DEFAULT_MAX_SUBAGENT_DEPTH,
  DEFAULT_SUBAGENT_MAX_TURNS,
  GENERAL_AGENT,
  TASK_TOOL_NAME,
  type TaskDetails,
  type TaskToolOptions,
  taskTool,
} from "./subagents/task-tool.js";
export * from "./telemetry/index.js";
export {
  type BatchEnv,
  type BatchResult,
  executeToolBatch,
  TRUNCATED_CALL_TEXT,
  unexecutedResults,
} from "./tool-batch.js";
export { NO_OUTPUT, normalizeToolResult } from "./tool-result.js";
export { toolSpec, toolSpecs, validateArguments } from "./tool-schema.js";
export * from "./types.js";
