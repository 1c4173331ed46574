// The loop-policy interface. Policies are small modules around the loop (iteration limit, tool
// selection, reflection, cycle detection, completion checklist, answer synthesis, interrupts,
// autopilot, the context guard); the loop calls them at fixed points and never branches on which
// policy it runs. See /work/notes/policy.md for the agreed contract.

import type {
  AssistantEvent,
  AssistantMessage,
  Context,
  Model,
  StreamFunction,
  StreamOptions,
  ToolCall,
  ToolResultMessage,
} from "@tern/ai";
import type {
  AgentEvent,
  AgentMessage,
  AgentStopReason,
  AnyAgentTool,
  InjectKind,
  MaybePromise,
} from "./types.js";

/** A policy is a factory: `start` runs once per run, so per-run state (counts) lives in its closure. */
export interface LoopPolicy {
  readonly name: string;
  /**
   * A model adapter (JSON mode): wraps the stream function of loop turns, once per run. Auxiliary
   * calls made with `PolicyRun.callModel` are not wrapped.
   */
  wrapStream?(next: StreamFunction): StreamFunction;
  /** Runs once per run, after the prompts are submitted and before the first turn. */
  // biome-ignore lint/suspicious/noConfusingVoidType: policies that only wrap the stream return nothing
  start(run: PolicyRun): MaybePromise<PolicyHooks | undefined | void>;
}

// biome-ignore lint/suspicious/noConfusingVoidType: hooks that have nothing to say return nothing
type Maybe<T> = MaybePromise<T | undefined | void>;

export interface ToolBatch {
  calls: ToolCall[];
  results: ToolResultMessage[];
}

export interface PolicyHooks {
  /** Before turn_start of every turn. May end the run here (iteration limit). */
  beforeTurn?(run: PolicyRun): Maybe<PolicyStop>;
  /**
   * After the turn's pending messages are appended, before the tool filter, transformContext,
   * convertToLlm and the model call. May replace messages (compaction) via `run.replaceMessages`.
   */
  beforeModelCall?(run: PolicyRun): Maybe<void>;
  /**
   * The tools offered in this turn (and allowed to run in its batch), given the run's tools after
   * earlier policies' filters. A per-turn view: it does not change the run's or the Agent's tools.
   */
  tools?(tools: readonly AnyAgentTool[], run: PolicyRun): readonly AnyAgentTool[];
  /** The model call ended with stopReason "error". `{ retry: true }` runs another turn instead of ending. */
  onModelError?(run: PolicyRun, message: AssistantMessage): Maybe<{ retry: boolean }>;
  /** After a tool batch ran. Injections go after all its results, before the next model call. */
  afterToolBatch?(run: PolicyRun, batch: ToolBatch): Maybe<PolicyInjection[]>;
  /**
   * Steering messages were drained from the queue. Returned injections replace them (interrupts
   * merge them into one pinned message); the first policy that returns something wins.
   */
  onSteering?(run: PolicyRun, messages: AgentMessage[]): Maybe<PolicyInjection[]>;
  /**
   * The model gave a final answer (no tool calls) and no steering message is waiting. Injections
   * reject it: the loop goes on with them (JSON reformat, completion checklist, autopilot nudge).
   * The first policy (in array order) that rejects wins; later ones judge the next answer.
   */
  onFinalAnswer?(run: PolicyRun, message: AssistantMessage): Maybe<PolicyInjection[]>;
  /** The run is ending. May supply the final answer (synthesis); later policies see it in `end.answer`. */
  onRunEnd?(run: PolicyRun, end: RunEndInfo): Maybe<{ answer?: string }>;
}

export interface RunEndInfo {
  stopReason: AgentStopReason;
  answer: string;
}

export interface PolicyInjection {
  message: AgentMessage;
  kind: InjectKind;
}

export interface PolicyStop {
  stopReason: AgentStopReason;
  /** The run's answer (otherwise the last assistant message's text). */
  answer?: string;
  errorMessage?: string;
  /** A name for the failure a host can act on (`PROMPT_TOO_LARGE`). */
  errorKind?: string;
}

export interface PolicyCallOptions extends Partial<Omit<StreamOptions, "signal">> {
  /** Another model for this call (default: the run's current model). */
  model?: Model;
  /** Sees every stream event (answer synthesis forwards text deltas). */
  onEvent?: (event: AssistantEvent) => MaybePromise<void>;
}

/** The narrow handle a policy gets on its run. Arrays are live: do not mutate them. */
export interface PolicyRun {
  /** Turns started so far in this run. */
  readonly turn: number;
  readonly messages: readonly AgentMessage[];
  readonly model: Model;
  /** The run's tools, before any policy's `tools` filter. */
  readonly tools: readonly AnyAgentTool[];
  readonly systemPrompt: string | undefined;
  /** The options of loop turns (API key, temperature, ...), signal included. */
  readonly streamOptions: StreamOptions;
  /** The run's model seam without adapters, for auxiliary calls made outside `callModel`. */
  readonly streamFn: StreamFunction;
  readonly signal: AbortSignal;
  /** The run's original request text (its prompts; for a continued run, the last user message). */
  readonly prompt: string;
  now(): number;
  /** A fresh id from the loop's generator (call ids of auxiliary calls made outside `callModel`). */
  newId(): string;
  emit(event: AgentEvent): Promise<void>;
  /** Replaces the context (compaction); emits `context_update`. */
  replaceMessages(messages: AgentMessage[]): Promise<void>;
  /** Replaces the run's tools for later turns; emits `context_update` (the Agent keeps them). */
  setTools(tools: AnyAgentTool[]): Promise<void>;
  /** Loop turns stream `message_update` events (default) or only `message_start/end`. */
  setStreamDeltas(enabled: boolean): void;
  /** An auxiliary model call, visible as `model_call_start/end` with this purpose; its usage counts in totals. */
  callModel(context: Context, purpose: string, options?: PolicyCallOptions): Promise<AssistantMessage>;
}
