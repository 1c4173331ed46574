// Public contracts of @tern/agent: messages, tools, the loop's configuration, run results and
// hooks. The events the loop emits live in `events.ts`; everything here is plain data so servers
// and sessions can ship and store it.

import type {
  AssistantMessage,
  JsonSchema,
  Message,
  Model,
  StreamFunction,
  StreamOptions,
  ThinkingLevel,
  ToolResultMessage,
  Usage,
  UserContent,
  UserMessage,
} from "@tern/ai";
import type { ZodType } from "zod";
import type { AgentEvent } from "./events.js";
import type { HookRegistry } from "./hooks.js";
import type { LoopPolicy } from "./policy.js";
import type { TelemetryOptions } from "./telemetry/options.js";

export type {
  AgentEvent,
  AgentEventSink,
  AgentEventType,
  CoreAgentEvent,
  ErrorSource,
  InjectKind,
  ModelCallPurpose,
  ToolBlock,
} from "./events.js";

export type MaybePromise<T> = T | Promise<T>;

// ---------------------------------------------------------------- messages

/**
 * Messages of your own (UI notes, bookmarks, ...) that live in the transcript but are not sent to
 * the model. Add them by declaration merging:
 * `declare module "@tern/agent" { interface CustomAgentMessages { note: { role: "note"; text: string } } }`
 * The default `convertToLlm` drops every message whose role is not user, assistant or toolResult.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging
export interface CustomAgentMessages {}

export type AgentMessage = Message | CustomAgentMessages[keyof CustomAgentMessages];

// ---------------------------------------------------------------- tools

export type ToolExecutionMode = "sequential" | "parallel";

/** A document a tool hands the user. Events carry it whole; the model sees a one-line note. */
export interface Artifact {
  name: string;
  kind: "html" | "markdown";
  content: string;
}

/** What a tool returns. A plain string is shorthand for `{ content: string }`. */
export interface AgentToolResult<TDetails = unknown> {
  content: string | UserContent[];
  /** Shown to the user; the model is told it was generated instead of reading it. */
  artifact?: Artifact;
  /** Structured data for UIs; never sent to the model. */
  details?: TDetails;
  isError?: boolean;
  /** Ask the loop to end. It ends only when every result of the batch asks for it. */
  terminate?: boolean;
}

/** A tool result after normalisation: content is always parts, flags are always set. */
export interface ToolOutcome<TDetails = unknown> {
  /** What the model reads (an artifact's note included). */
  content: UserContent[];
  artifact?: Artifact;
  details?: TDetails;
  isError: boolean;
  terminate: boolean;
}

export interface ToolExecutionContext {
  /** Aborts when the run is aborted. */
  signal: AbortSignal;
  toolCallId: string;
  /** Streams a partial result as a `tool_execution_update` event; await it to respect back-pressure. */
  onUpdate: (partial: AgentToolResult | string) => Promise<void>;
  /**
   * Emits an event into the run's stream: a tool that runs a sub-agent (`task`) forwards its
   * events here, marked with `parentToolCallId`. Absent when the tool is called outside a loop.
   */
  emit?: (event: AgentEvent) => Promise<void>;
}

export interface AgentTool<TParams = Record<string, unknown>, TDetails = unknown> {
  name: string;
  /** Human-readable name for UIs. */
  label?: string;
  description: string;
  /** A zod schema (converted with `z.toJSONSchema` for the model, validated with zod) or plain JSON Schema (validated with ajv). */
  parameters: ZodType<TParams> | JsonSchema;
  /** "sequential" makes the whole batch it is in run one call at a time. */
  executionMode?: ToolExecutionMode;
  /** Repairs raw model arguments before validation (renamed fields, legacy shapes). */
  prepareArguments?(args: Record<string, unknown>): MaybePromise<Record<string, unknown>>;
  execute(
    args: TParams,
    context: ToolExecutionContext,
    // biome-ignore lint/suspicious/noConfusingVoidType: handlers that return nothing must fit
  ): MaybePromise<AgentToolResult<TDetails> | string | undefined | void>;
}

// biome-ignore lint/suspicious/noExplicitAny: one list holds tools of every parameter type
export type AnyAgentTool = AgentTool<any, any>;

// ---------------------------------------------------------------- context and configuration

export interface AgentContext {
  systemPrompt?: string;
  messages: AgentMessage[];
  tools?: AnyAgentTool[];
}

export interface ToolExecutionConfig {
  /** Default "parallel". A batch runs sequentially when this says so or any of its tools asks. */
  mode?: ToolExecutionMode;
  /** Most calls of one batch running at once (parallel mode). Default: no cap. */
  concurrency?: number;
}

/** What `prepareNextTurn` sees before every model call. Arrays are live: do not mutate them. */
export interface TurnPreparation {
  /** 1-based turn number within this run. */
  turn: number;
  messages: readonly AgentMessage[];
  model: Model;
  thinkingLevel: ThinkingLevel;
  systemPrompt: string | undefined;
  tools: readonly AnyAgentTool[];
  signal: AbortSignal;
  /** Emits an event into the run's stream (policies report compactions, auxiliary model calls, injections). */
  emit: (event: AgentEvent) => Promise<void>;
}

/** Changes for this and later turns of the run. Omitted fields stay as they are. */
export interface TurnPatch {
  /** Replaces the whole context (compaction). */
  messages?: AgentMessage[];
  model?: Model;
  thinkingLevel?: ThinkingLevel;
  systemPrompt?: string;
  tools?: AnyAgentTool[];
}

export interface TurnSummary {
  turn: number;
  message: AssistantMessage;
  toolResults: ToolResultMessage[];
  messages: readonly AgentMessage[];
}

export interface AgentLoopConfig {
  model: Model;
  /** Sent as `StreamOptions.reasoning`. Default "off". */
  thinkingLevel?: ThinkingLevel;
  /** Passed to every model call (apiKey, getApiKey, temperature, maxTokens, retry, sessionId, ...). */
  streamOptions?: Omit<StreamOptions, "signal" | "reasoning">;
  /** The model seam. Defaults to `stream` from @tern/ai. */
  streamFn?: StreamFunction;
  /** Turns agent messages into model messages. Default: keep user, assistant and toolResult. */
  convertToLlm?: (messages: AgentMessage[]) => MaybePromise<Message[]>;
  /** Runs before `convertToLlm` on every turn (pruning, injecting context). Must not mutate its input. */
  transformContext?: (messages: AgentMessage[], signal: AbortSignal) => MaybePromise<AgentMessage[]>;
  /** Polled at the start and after every turn (so after a whole tool batch); returned messages go before the next model call. */
  getSteeringMessages?: () => MaybePromise<AgentMessage[]>;
  /** Polled only when the agent would stop; returned messages start it again. */
  getFollowUpMessages?: () => MaybePromise<AgentMessage[]>;
  /** Runs before every model call; may replace the context, switch model, thinking level, prompt or tools. */
  // biome-ignore lint/suspicious/noConfusingVoidType: handlers that return nothing must fit
  prepareNextTurn?: (turn: TurnPreparation) => MaybePromise<TurnPatch | undefined | void>;
  /** Runs after every turn; true ends the run (stop reason "stopped_by_caller"). */
  shouldStopAfterTurn?: (turn: TurnSummary) => MaybePromise<boolean>;
  toolExecution?: ToolExecutionConfig;
  hooks?: HookRegistry;
  /**
   * Policies around the loop (iteration limit, tool selection, reflection, ...), called in array
   * order at fixed points of every run. `reactPolicies(options)` builds the standard set.
   */
  policies?: LoopPolicy[];
  /** Clock in ms (timestamps, durations). Default `Date.now`. */
  now?: () => number;
  /** Id generator (run ids, model call ids). Default `crypto.randomUUID`. */
  ids?: () => string;
  /**
   * OpenTelemetry spans for the run (GenAI conventions). On by default: without an SDK installed
   * by the host the API is a no-op. `false` turns it off.
   */
  telemetry?: TelemetryOptions | false;
}

// ---------------------------------------------------------------- run results

export type AgentStopReason =
  /** The model answered and nothing was queued. */
  | "stop"
  /** The final answer hit the output token limit. */
  | "length"
  /** A model call or a loop callback failed; `errorMessage` says why. */
  | "error"
  | "aborted"
  /** Every result of the last tool batch asked to terminate. */
  | "terminated"
  /** A hook ended the run (PreToolUse "terminate", UserPromptSubmit "block"). */
  | "stopped_by_hook"
  /** `shouldStopAfterTurn` returned true. */
  | "stopped_by_caller"
  /** The iteration limit was reached without a final answer. */
  | "max_iterations";

export interface AgentRunResult {
  /** Messages added to the context in this run, in order. */
  messages: AgentMessage[];
  /** Text of the last assistant message ("" when there is none). */
  answer: string;
  /** Every model call of the run, auxiliary ones included. */
  usage: Usage;
  /** Turns (loop model calls). */
  iterations: number;
  elapsedMs: number;
  stopReason: AgentStopReason;
  errorMessage?: string;
  /** Set by a policy that ended the run for a named reason (`PROMPT_TOO_LARGE`). */
  errorKind?: string;
}

// ---------------------------------------------------------------- hooks

export type HookEventName =
  | "PreToolUse"
  | "PostToolUse"
  | "PostToolUseFailure"
  | "UserPromptSubmit"
  | "Stop"
  | "SessionStart";

export interface PreToolUseInput {
  toolName: string;
  toolCallId: string;
  /** Validated arguments, after earlier hooks' rewrites. */
  args: Record<string, unknown>;
}

export interface PreToolUseOutput {
  /** "allow" is an explicit no-objection; "deny" blocks this call; "terminate" blocks it and ends the run. */
  decision?: "allow" | "deny" | "terminate";
  /** Shown to the model for deny and terminate. */
  reason?: string;
  /** Replaces the arguments (re-validated; later hooks see them). */
  args?: Record<string, unknown>;
}

export interface PostToolUseInput {
  toolName: string;
  toolCallId: string;
  args: Record<string, unknown>;
  result: ToolOutcome;
}

export interface PostToolUseOutput {
  /** Replaces the result (later hooks see it). */
  result?: AgentToolResult;
}

export interface PostToolUseFailureInput extends PostToolUseInput {
  /** The error text the model will see unless a hook rewrites the result. */
  error: string;
}

export interface UserPromptSubmitInput {
  message: UserMessage;
  /** The text parts of the prompt joined. */
  prompt: string;
}

export interface UserPromptSubmitOutput {
  /** "block" drops the prompt and ends the run (stop reason "stopped_by_hook"). */
  decision?: "block";
  reason?: string;
  /** Replaces the prompt's text (images stay). */
  prompt?: string;
  /** Added to the prompt as an extra text part. */
  additionalContext?: string;
}

export interface StopInput {
  lastMessage: AssistantMessage;
  /** True when a Stop hook already blocked a stop in this run (guard against endless loops). */
  stopHookActive: boolean;
}

export interface StopOutput {
  /** "block" keeps the agent going; `reason` becomes a follow-up user message. */
  decision?: "block";
  reason?: string;
}

export interface SessionStartInput {
  source: "startup" | "resume" | (string & {});
}

export interface SessionStartOutput {
  /** Added to the first prompt as context. */
  additionalContext?: string;
}

export interface HookIO {
  PreToolUse: { input: PreToolUseInput; output: PreToolUseOutput };
  PostToolUse: { input: PostToolUseInput; output: PostToolUseOutput };
  PostToolUseFailure: { input: PostToolUseFailureInput; output: PostToolUseOutput };
  UserPromptSubmit: { input: UserPromptSubmitInput; output: UserPromptSubmitOutput };
  Stop: { input: StopInput; output: StopOutput };
  SessionStart: { input: SessionStartInput; output: SessionStartOutput };
}

export interface HookDefinition<E extends HookEventName = HookEventName> {
  event: E;
  /** Shown in error events and denial reasons. */
  name?: string;
  /** Tool-name globs (`*`, `?`) for tool events; ignored by other events. Default: every tool. */
  matcher?: string | string[];
  /** Higher runs first; ties run in registration order. Default 0. */
  priority?: number;
  /** Default: the registry's default (30 s). A timeout counts as a crash. */
  timeoutMs?: number;
  /** A crash or timeout denies (PreToolUse) or blocks (UserPromptSubmit) instead of being ignored. */
  failClosed?: boolean;
  handler: (
    input: HookIO[E]["input"],
    context: { signal: AbortSignal },
    // biome-ignore lint/suspicious/noConfusingVoidType: handlers that return nothing must fit
  ) => MaybePromise<HookIO[E]["output"] | undefined | void>;
}

export type Hook = { [E in HookEventName]: HookDefinition<E> }[HookEventName];

/** A hook that crashed or timed out. */
export interface HookFailure {
  event: HookEventName;
  hookName: string;
  message: string;
  timedOut: boolean;
  failClosed: boolean;
  toolCallId?: string;
}
