import type { AssistantMessage, ImageContent, Model, ThinkingLevel, Usage } from "@tern/ai";
import {
  type CompactionResult,
  type ContextGuardOptions,
  compact as compactMessages,
  isContextGuard,
} from "./context/index.js";
import { hookFailureEvent } from "./hooks.js";
import { runAgentLoop, runAgentLoopContinue } from "./loop.js";
import { userMessage } from "./messages.js";
import { runPlan } from "./plan/run-plan.js";
import { planConfig, runWithStrategy } from "./plan/strategy.js";
import type { PlanCheckpoint, PlanOptions, RunStrategy } from "./plan/types.js";
import { type ReactOptions, reactPolicies } from "./policies/react.js";
import type { AgentEvent, AgentLoopConfig, AgentMessage, AgentRunResult, AnyAgentTool } from "./types.js";
import { UsageTally } from "./usage-tally.js";

export type QueueMode = "all" | "one-at-a-time";

export interface AgentOptions extends Omit<AgentLoopConfig, "getSteeringMessages" | "getFollowUpMessages"> {
  systemPrompt?: string;
  tools?: AnyAgentTool[];
  messages?: AgentMessage[];
  /** How queued steering messages reach the model: all at once (default) or one per turn. */
  steeringMode?: QueueMode;
  followUpMode?: QueueMode;
  /** `source` for SessionStart hooks, run before the first prompt. Default "startup". */
  sessionSource?: string;
  /** Called when a listener throws (default: ignored; the run goes on). */
  onListenerError?: (error: unknown, event: AgentEvent) => void;
  /**
   * The standard policy set (`reactPolicies(react)`: tool mode, iteration limit, tool selection,
   * reflection, cycle detection, completion checklist, interrupts, autopilot, answer synthesis).
   * Runs before `policies`.
   */
  react?: ReactOptions;
  /** How prompts run: one ReAct loop (default), a plan of parallel steps, or the router's choice. */
  strategy?: RunStrategy;
  /** Plan mode's limits and model roles (concurrency, rounds, step limits, `fast`/`reasoning`). */
  plan?: PlanOptions;
}

export interface TurnUsage {
  /** Counts turns across every run of this agent, from 1. */
  turn: number;
  model: string;
  /** Every model call of the turn, auxiliary ones included. */
  usage: Usage;
}

export interface AgentState {
  systemPrompt: string | undefined;
  model: Model;
  thinkingLevel: ThinkingLevel;
  tools: AnyAgentTool[];
  messages: AgentMessage[];
  isRunning: boolean;
  /** The assistant message being streamed (a live object), if any. */
  streamingMessage: AssistantMessage | undefined;
  /** Tool calls started and not yet finished. */
  pendingToolCalls: Set<string>;
  /** The error message of the last run, if it failed. */
  error: string | undefined;
  usage: { total: Usage; turns: TurnUsage[] };
}

export type AgentListener = (event: AgentEvent) => void | Promise<void>;

export interface PromptOptions {
  /** Images to send with a text prompt. */
  images?: ImageContent[];
  /** While a run is going, queue the prompt as a follow-up instead of rejecting. */
  queue?: boolean;
  /** This prompt's strategy (default: the agent's `strategy`). Steering during a plan forces a replan. */
  strategy?: RunStrategy;
}

/**
 * A stateful shell around the loop. Its state changes only through the loop's events, so what a
 * listener sees and what the agent holds never disagree. Listeners are awaited in order.
 */
export class Agent {
  readonly state: AgentState;
  private readonly listeners = new Set<AgentListener>();
  private readonly steeringQueue: AgentMessage[] = [];
  private readonly followUpQueue: AgentMessage[] = [];
  private controller: AbortController | undefined;
  private running: Promise<AgentRunResult> | undefined;
  /** Every model call of every run; `state.usage.total` is its total. */
  private readonly usage = new UsageTally();
  /** The turn under way and the tally of its calls (auxiliary ones included). */
  private currentTurn: { record: TurnUsage; tally: UsageTally } | undefined;
  private turnCount = 0;
  private sessionStarted = false;

  private readonly policies: AgentLoopConfig["policies"];

  constructor(private readonly options: AgentOptions) {
    // Built once: policies are factories, their per-run state lives in each run.
    this.policies = options.react
      ? [...reactPolicies(options.react), ...(options.policies ?? [])]
      : options.policies;
    this.state = {
      systemPrompt: options.systemPrompt,
      model: options.model,
      thinkingLevel: options.thinkingLevel ?? "off",
      tools: options.tools ?? [],
      messages: options.messages?.slice() ?? [],
      isRunning: false,
      streamingMessage: undefined,
      pendingToolCalls: new Set(),
      error: undefined,
      usage: { total: this.usage.total, turns: [] },
    };
  }

  subscribe(listener: AgentListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  setModel(model: Model): void {
    this.state.model = model;
  }

  setSystemPrompt(systemPrompt: string | undefined): void {
    this.state.systemPrompt = systemPrompt;
  }

  setThinkingLevel(level: ThinkingLevel): void {
    this.state.thinkingLevel = level;
  }

  setTools(tools: AnyAgentTool[]): void {
    this.state.tools = tools;
  }

  /**
   * Compacts the conversation now: the older part becomes a summary (the work card, unless `hint`
   * names another prompt or gives a focus); pinned messages and the recent part stay verbatim.
   * Listeners see compaction_start/end, the summariser's model_call_start/end (purpose
   * "compaction", counted in usage), then a context_update with the new messages. Options default
   * to those of a contextGuard() among `policies`. Rejects while a run is going.
   */
  async compact(hint?: string, options?: ContextGuardOptions): Promise<CompactionResult> {
    if (this.running) throw new Error("Agent is running; await waitForIdle() before compact().");
    const guard = this.options.policies?.find(isContextGuard);
    const result = await compactMessages(this.state.messages, this.state.model, hint, {
      ...(options ?? guard?.options),
      systemPrompt: this.state.systemPrompt,
      tools: this.state.tools,
      streamFn: this.options.streamFn,
      streamOptions: this.options.streamOptions,
      now: this.options.now,
      ids: this.options.ids,
      emit: this.handle,
    });
    if (result.messages !== this.state.messages) {
      await this.handle({ type: "context_update", messages: result.messages });
    }
    return result;
  }

  replaceMessages(messages: AgentMessage[]): void {
    this.state.messages = messages.slice();
  }

  /**
   * Starts a run with a prompt and resolves with its result. While a run is going it rejects,
   * unless `queue` is set: then the prompt becomes a follow-up of the current run, and the promise
   * resolves with that run's result.
   */
  async prompt(
    input: string | AgentMessage | AgentMessage[],
    options: PromptOptions = {},
  ): Promise<AgentRunResult> {
    const messages = this.toMessages(input, options.images);
    if (this.running) {
      if (!options.queue) {
        throw new Error(
          "Agent is already running. Use steer() or followUp(), pass { queue: true }, or await waitForIdle() first.",
        );
      }
      this.followUpQueue.push(...messages);
      return this.running;
    }
    return this.start(messages, options.strategy);
  }

  /**
   * Continues a plan that stopped mid-way (abort, crash), keeping the steps that finished:
   * `planCheckpoint(events)` rebuilds the checkpoint from a session's event log.
   */
  async resumePlan(checkpoint: PlanCheckpoint): Promise<AgentRunResult> {
    if (this.running) throw new Error("Agent is already running; await waitForIdle() before resumePlan().");
    return this.start([], "plan", checkpoint);
  }

  /**
   * Runs again from the current messages: after tool results or a repaired crash, or, when the
   * last message is the assistant's, with whatever steering and follow-ups are queued.
   */
  async continue(): Promise<AgentRunResult> {
    if (this.running) throw new Error("Agent is already running; await waitForIdle() before continue().");
    const last = this.state.messages[this.state.messages.length - 1];
    if ((last as { role?: unknown } | undefined)?.role === "assistant") {
      const queued = this.steeringQueue.splice(0).concat(this.followUpQueue.splice(0));
      if (queued.length === 0) {
        throw new Error(
          "Nothing to continue: the last message is the assistant's and no messages are queued.",
        );
      }
      return this.start(queued);
    }
    return this.start(undefined);
  }

  /**
   * Delivered at the next turn boundary: after the current assistant message and its tool results,
   * before the next model call; a final answer pending then is held back and the run goes on.
   */
  steer(input: string | AgentMessage | AgentMessage[]): void {
    this.steeringQueue.push(...this.toMessages(input));
  }

  /** The same queue as `steer()`; with the interrupt policy it reaches the model as one `[USER INTERRUPT]` message. */
  interrupt(input: string | AgentMessage | AgentMessage[]): void {
    this.steer(input);
  }

  /** Delivered when the agent would otherwise stop. */
  followUp(input: string | AgentMessage | AgentMessage[]): void {
    this.followUpQueue.push(...this.toMessages(input));
  }

  clearQueues(): void {
    this.steeringQueue.length = 0;
    this.followUpQueue.length = 0;
  }

  get queuedMessages(): { steering: readonly AgentMessage[]; followUp: readonly AgentMessage[] } {
    return { steering: this.steeringQueue, followUp: this.followUpQueue };
  }

  abort(): void {
    this.controller?.abort();
  }

  /** Resolves once no run is going (at once when idle). */
  async waitForIdle(): Promise<void> {
    while (this.running) await this.running;
  }

  private start(
    prompts: AgentMessage[] | undefined,
    strategy?: RunStrategy,
    checkpoint?: PlanCheckpoint,
  ): Promise<AgentRunResult> {
    const controller = new AbortController();
    this.controller = controller;
    this.state.isRunning = true;
    this.state.error = undefined;
    const run = this.execute(prompts, controller.signal, strategy, checkpoint)
      .then((result) => this.deliverLate(result, controller.signal))
      .finally(() => {
        if (this.running === run) {
          this.running = undefined;
          this.controller = undefined;
          this.state.isRunning = false;
        }
      });
    this.running = run;
    return run;
  }

  /**
   * A message queued after the loop's last look at the queues (by an agent_end listener, or
   * another task while the run was ending) is delivered by running on from it, so it is never left
   * for whichever run comes next. An aborted run delivers nothing; its queues stay for the host.
   */
  private async deliverLate(result: AgentRunResult, signal: AbortSignal): Promise<AgentRunResult> {
    while (!signal.aborted && this.steeringQueue.length + this.followUpQueue.length > 0) {
      result = await this.execute(this.steeringQueue.splice(0).concat(this.followUpQueue.splice(0)), signal);
    }
    return result;
  }

  private async execute(
    prompts: AgentMessage[] | undefined,
    signal: AbortSignal,
    strategy = this.options.strategy ?? "loop",
    checkpoint?: PlanCheckpoint,
  ): Promise<AgentRunResult> {
    if (prompts) prompts = await this.withSessionContext(prompts, signal);
    const context = {
      systemPrompt: this.state.systemPrompt,
      messages: this.state.messages,
      tools: this.state.tools,
    };
    const {
      steeringMode,
      followUpMode,
      sessionSource: _,
      onListenerError: __,
      react: ___,
      strategy: ____,
      plan,
      ...loopOptions
    } = this.options;
    const config: AgentLoopConfig = {
      ...loopOptions,
      policies: this.policies,
      model: this.state.model,
      thinkingLevel: this.state.thinkingLevel,
      getSteeringMessages: () => drain(this.steeringQueue, steeringMode),
      getFollowUpMessages: () => drain(this.followUpQueue, followUpMode),
    };
    if (checkpoint) {
      return runPlan([], planConfig(config, context, { ...plan, resume: checkpoint }), this.handle, signal);
    }
    if (prompts && strategy !== "loop") {
      return runWithStrategy(strategy, prompts, context, { ...config, plan }, this.handle, signal);
    }
    return prompts
      ? runAgentLoop(prompts, context, config, this.handle, signal)
      : runAgentLoopContinue(context, config, this.handle, signal);
  }

  /** SessionStart hooks run once, before the first prompt; what they add rides on that prompt. */
  private async withSessionContext(prompts: AgentMessage[], signal: AbortSignal): Promise<AgentMessage[]> {
    const hooks = this.options.hooks;
    if (this.sessionStarted || !hooks) return prompts;
    this.sessionStarted = true;
    if (hooks.count("SessionStart") === 0) return prompts;
    const added = await hooks.runSessionStart(
      { source: this.options.sessionSource ?? "startup" },
      (failure) => this.handle(hookFailureEvent(failure)),
      signal,
    );
    const index = prompts.findIndex((message) => (message as { role?: unknown }).role === "user");
    if (added.length === 0 || index < 0) return prompts;
    const first = prompts[index] as Extract<AgentMessage, { role: "user" }>;
    const parts =
      typeof first.content === "string" ? [{ type: "text" as const, text: first.content }] : first.content;
    const copy = prompts.slice();
    copy[index] = {
      ...first,
      content: [...parts, ...added.map((text) => ({ type: "text" as const, text }))],
    };
    return copy;
  }

  private readonly handle = (event: AgentEvent): void | Promise<void> => {
    this.reduce(event);
    let chain: Promise<void> | undefined;
    for (const listener of this.listeners) {
      if (chain) {
        chain = chain.then(() => this.call(listener, event));
        continue;
      }
      const pending = this.call(listener, event);
      if (pending) chain = pending;
    }
    return chain;
  };

  private call(listener: AgentListener, event: AgentEvent): void | Promise<void> {
    try {
      const pending = listener(event);
      if (pending)
        return pending.then(undefined, (error: unknown) => this.options.onListenerError?.(error, event));
    } catch (error) {
      this.options.onListenerError?.(error, event);
    }
  }

  /** The only place state changes during a run. */
  private reduce(event: AgentEvent): void {
    const state = this.state;
    switch (event.type) {
      case "message_start":
        if ((event.message as { role?: unknown }).role === "assistant") {
          state.streamingMessage = event.message as AssistantMessage;
        }
        break;
      case "message_update":
        state.streamingMessage = event.message;
        break;
      case "message_end":
        state.messages.push(event.message);
        if ((event.message as { role?: unknown }).role === "assistant") state.streamingMessage = undefined;
        break;
      case "tool_execution_start":
        state.pendingToolCalls.add(event.toolCallId);
        break;
      case "tool_execution_end":
        state.pendingToolCalls.delete(event.toolCallId);
        break;
      case "context_update":
        if (event.messages) state.messages = event.messages.slice();
        if (event.model) state.model = event.model;
        if (event.thinkingLevel) state.thinkingLevel = event.thinkingLevel;
        if (event.systemPrompt !== undefined) state.systemPrompt = event.systemPrompt;
        if (event.tools) state.tools = event.tools;
        break;
      case "turn_start": {
        const tally = new UsageTally();
        const record = { turn: ++this.turnCount, model: state.model.id, usage: tally.total };
        this.currentTurn = { record, tally };
        state.usage.turns.push(record);
        break;
      }
      case "model_call_end":
        this.usage.add(event);
        if (this.currentTurn) {
          this.currentTurn.tally.add(event);
          if (event.purpose === "turn") this.currentTurn.record.model = event.model;
        }
        break;
      case "turn_end":
        this.currentTurn = undefined;
        break;
      case "agent_end":
        state.streamingMessage = undefined;
        state.pendingToolCalls.clear();
        state.error = event.errorMessage;
        this.currentTurn = undefined;
        break;
    }
  }

  private toMessages(input: string | AgentMessage | AgentMessage[], images?: ImageContent[]): AgentMessage[] {
    if (typeof input === "string") return [userMessage(input, (this.options.now ?? Date.now)(), images)];
    return Array.isArray(input) ? input : [input];
  }
}

function drain(queue: AgentMessage[], mode: QueueMode = "all"): AgentMessage[] {
  if (queue.length === 0) return [];
  return mode === "one-at-a-time" ? queue.splice(0, 1) : queue.splice(0);
}
