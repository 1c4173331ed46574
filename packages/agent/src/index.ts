// The public API of @tern/agent: what a host needs to run the loop, give it tools, hooks and
// policies, and read its events. Everything else stays internal (tests reach it by relative path);
// api/agent.api.md lists this surface and `npm run check` fails when the two differ.
export { ABORTED_TOOL_TEXT } from "./aborted-tool.js";
export { Agent, type AgentOptions } from "./agent.js";
export { contextGuard } from "./context/guard.js";
export { contextWindowCheck, PROMPT_TOO_LARGE } from "./context/window-check.js";
export { defineTool } from "./define-tool.js";
export { contextUpdateData } from "./event-data.js";
export { type AgentEventFamilies, type CoreAgentEvent, familyGuard, isCoreEvent } from "./events.js";
export { parseFrontMatter } from "./front-matter.js";
export { globMatcher } from "./glob.js";
export { HookRegistry } from "./hooks.js";
export { agentLoop, agentLoopContinue, runAgentLoop } from "./loop.js";
export { messageText, userMessage } from "./messages.js";
export { type NestedPlace, NestedRuns } from "./nested-runs.js";
export { planCheckpoint } from "./plan/checkpoint.js";
export { isPlanEvent, type PlanEvent } from "./plan/events.js";
export {
  isRunStrategy,
  MODEL_ROLES,
  type ModelRole,
  type PlanCheckpoint,
  type PlanStep,
  RUN_STRATEGIES,
  type RunStrategy,
} from "./plan/types.js";
export { type AnswerEvent, isAnswerEvent } from "./policies/answer-events.js";
export { answerSynthesis } from "./policies/answer-synthesis.js";
export { interrupts } from "./policies/interrupts.js";
export { type ReactOptions, reactPolicies } from "./policies/react.js";
export { isTaskCompleteEvent, type TaskCompleteEvent } from "./policies/task-complete-events.js";
export { POLICY_TOOL_NAMES } from "./policies/tool-names.js";
export { toolSelection } from "./policies/tool-selection.js";
export type { LoopPolicy } from "./policy.js";
export { isSubagentEvent, type SubagentEvent } from "./subagents/events.js";
export { type AgentProfile, parseAgentProfile } from "./subagents/profile.js";
export { TASK_TOOL_NAME, taskTool } from "./subagents/task-tool.js";
export type { TelemetryOptions } from "./telemetry/options.js";
export { validateArguments } from "./tool-schema.js";
export type {
  AgentContext,
  AgentEvent,
  AgentLoopConfig,
  AgentMessage,
  AgentRunResult,
  AgentStopReason,
  AgentTool,
  AgentToolResult,
  AnyAgentTool,
  CustomAgentMessages,
  Hook,
  HookDefinition,
  HookEventName,
  HookIO,
  InjectKind,
  ToolOutcome,
  TurnPatch,
  TurnPreparation,
} from "./types.js";
