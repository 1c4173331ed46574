// The loop's own events (runs, turns, model calls, messages, context, tools, phases, compaction,
// injections, errors) and the one extension point through which features add theirs. A feature
// (plan mode, sub-agents, answer synthesis, autopilot) declares its family in its own module by
// declaration merging into `AgentEventFamilies`, with a guard that consumers import to opt in;
// this file knows none of them, so the core never imports a feature to describe what it emits.

import type {
  AssistantEvent,
  AssistantMessage,
  ErrorKind,
  Model,
  RetryNotice,
  ThinkingLevel,
  ToolResultMessage,
  Usage,
} from "@tern/ai";
import type { AgentMessage, AgentRunResult, AnyAgentTool, HookEventName, ToolOutcome } from "./types.js";

export type InjectKind =
  | "steering"
  | "follow_up"
  | "interrupt"
  | "reflection"
  | "cycle_warning"
  | "completion_check"
  | "nudge"
  /** JSON mode asks the model to resend an unparsable reply. */
  | "reformat";

/** "turn" for loop turns; auxiliary calls name their job ("compaction", "tool_selection", "synthesis", ...). */
export type ModelCallPurpose = "turn" | (string & {});

export type ToolBlock = "denied" | "terminated";

export type ErrorSource = "hook" | "loop" | "listener" | "policy";

/**
 * Nesting marks, read by `NestedRuns` (`nested-runs.ts`). `parentToolCallId`: the event was made
 * by the sub-agent of that `task` call. `stepId`: by the run of that plan step (steps run in
 * parallel). Absent on the run's own events.
 */
interface Nested {
  parentToolCallId?: string;
}
interface InStep extends Nested {
  stepId?: string;
}

export type CoreAgentEvent =
  | { type: "agent_start"; runId: string; timestamp: number }
  | { type: "turn_start"; turn: number; timestamp: number }
  | ({
      type: "model_call_start";
      callId: string;
      purpose: ModelCallPurpose;
      model: string;
      provider: string;
      timestamp: number;
    } & Nested)
  | ({
      type: "model_call_end";
      callId: string;
      purpose: ModelCallPurpose;
      model: string;
      provider: string;
      usage: Usage;
      durationMs: number;
      stopReason: AssistantMessage["stopReason"];
      errorMessage?: string;
      errorKind?: ErrorKind;
    } & Nested)
  /** A model call failed before any output and will be tried again after `delayMs`. */
  | ({
      type: "model_retry";
      callId: string;
      purpose: ModelCallPurpose;
      model: string;
      provider: string;
    } & Nested &
      RetryNotice)
  | { type: "message_start"; message: AgentMessage }
  /** `message` is the live partial (the same object every update): copy it if you keep it. */
  | { type: "message_update"; message: AssistantMessage; assistantEvent: AssistantEvent }
  | { type: "message_end"; message: AgentMessage }
  /** `prepareNextTurn` changed the run's context; only changed fields are present. */
  | {
      type: "context_update";
      messages?: AgentMessage[];
      model?: Model;
      thinkingLevel?: ThinkingLevel;
      systemPrompt?: string;
      tools?: AnyAgentTool[];
    }
  | ({
      type: "tool_execution_start";
      toolCallId: string;
      toolName: string;
      args: Record<string, unknown>;
    } & InStep)
  | ({
      type: "tool_execution_update";
      toolCallId: string;
      toolName: string;
      args: Record<string, unknown>;
      partialResult: ToolOutcome;
    } & InStep)
  | ({
      type: "tool_execution_end";
      toolCallId: string;
      toolName: string;
      result: ToolOutcome;
      isError: boolean;
      durationMs: number;
      /** A PreToolUse hook (a permission policy) denied the call, or denied it and ended the run. */
      blocked?: ToolBlock;
    } & InStep)
  | { type: "turn_end"; turn: number; message: AssistantMessage; toolResults: ToolResultMessage[] }
  | { type: "phase"; phase: string; detail?: Record<string, unknown> }
  | { type: "compaction_start"; reason: string; tokensBefore: number; messagesBefore: number }
  | {
      type: "compaction_end";
      reason: string;
      tokensBefore: number;
      tokensAfter: number;
      messagesBefore: number;
      messagesKept: number;
      errorMessage?: string;
    }
  | { type: "inject"; kind: InjectKind; content: string; message?: AgentMessage }
  | {
      type: "error";
      source: ErrorSource;
      message: string;
      /** For hook errors: which hook event and hook. */
      hookEvent?: HookEventName;
      hookName?: string;
      toolCallId?: string;
    }
  | ({ type: "agent_end" } & AgentRunResult);

/**
 * Event families of features, one entry per family, filled by declaration merging:
 * `declare module "@tern/agent" { interface AgentEventFamilies { review: ReviewEvent } }`
 * (inside this package, `declare module "../events.js"`). Each family's `type` strings must differ
 * from the core's and from every other family's.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging
export interface AgentEventFamilies {}

/** Everything a run's stream carries: the core events and every declared family. */
export type AgentEvent = CoreAgentEvent | AgentEventFamilies[keyof AgentEventFamilies];

export type AgentEventType = AgentEvent["type"];

/** Receives events; a returned promise is awaited before the loop goes on. */
export type AgentEventSink = (event: AgentEvent) => void | Promise<void>;

/**
 * A guard for one family, from the list of its `type` strings (a record, so the compiler checks
 * the list is whole): what each family module exports for consumers to opt in. It takes any
 * `{ type }` so that events read back from a session log narrow too.
 */
export function familyGuard<E extends AgentEvent>(
  types: Record<E["type"], true>,
): (event: { type: string }) => event is E {
  const known: ReadonlySet<string> = new Set(Object.keys(types));
  return (event): event is E => known.has(event.type);
}

const CORE_TYPES: Record<CoreAgentEvent["type"], true> = {
  agent_start: true,
  turn_start: true,
  model_call_start: true,
  model_call_end: true,
  model_retry: true,
  message_start: true,
  message_update: true,
  message_end: true,
  context_update: true,
  tool_execution_start: true,
  tool_execution_update: true,
  tool_execution_end: true,
  turn_end: true,
  phase: true,
  compaction_start: true,
  compaction_end: true,
  inject: true,
  error: true,
  agent_end: true,
};

/** True for the loop's own events: a consumer that opts into no family handles these and skips the rest. */
export const isCoreEvent = familyGuard<CoreAgentEvent>(CORE_TYPES);
