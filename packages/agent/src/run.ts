import {
  type AssistantMessage,
  addUsageInto,
  type Context,
  emptyUsage,
  type Model,
  type StreamFunction,
  type StreamOptions,
  stream,
  type ThinkingLevel,
  type ToolResultMessage,
  type Usage,
} from "@tern/ai";
import type { HookFailureReporter } from "./hooks.js";
import { assistantText, defaultConvertToLlm, messageText, toolCallsOf, userMessage } from "./messages.js";
import { callModel, failed, type ModelCallEnv } from "./model-call.js";
import { executeToolBatch, TRUNCATED_CALL_TEXT, unexecutedResults } from "./tool-batch.js";
import { describeThrown } from "./tool-result.js";
import { toolSpecs } from "./tool-schema.js";
import type {
  AgentContext,
  AgentEvent,
  AgentEventSink,
  AgentLoopConfig,
  AgentMessage,
  AgentRunResult,
  AgentStopReason,
  AnyAgentTool,
  InjectKind,
  TurnPatch,
} from "./types.js";

interface Injection {
  message: AgentMessage;
  /** Undefined for the run's own prompts. */
  kind?: InjectKind;
}

interface RunEnd {
  stopReason: AgentStopReason;
  errorMessage?: string;
}

const NONE: Injection[] = [];
const RESOLVED = Promise.resolve();

/** One run: the double loop over turns, follow-ups and stop hooks. */
export class Run {
  private messages: AgentMessage[];
  private readonly added: AgentMessage[] = [];
  private model: Model;
  private thinkingLevel: ThinkingLevel;
  private systemPrompt: string | undefined;
  private tools: AnyAgentTool[];
  private streamOptions: StreamOptions;
  private readonly usage: Usage = emptyUsage();
  private readonly signal: AbortSignal;
  private readonly now: () => number;
  private readonly modelEnv: ModelCallEnv;
  private turn = 0;
  private lastAssistant: AssistantMessage | undefined;
  private stopHookActive = false;
  private sinkFailed = false;

  constructor(
    context: AgentContext,
    private readonly config: AgentLoopConfig,
    private readonly sink: AgentEventSink,
    signal: AbortSignal | undefined,
  ) {
    this.messages = context.messages.slice();
    this.model = config.model;
    this.thinkingLevel = config.thinkingLevel ?? "off";
    this.systemPrompt = context.systemPrompt;
    this.tools = context.tools ?? [];
    this.signal = signal ?? new AbortController().signal;
    this.now = config.now ?? Date.now;
    this.streamOptions = this.buildStreamOptions();
    this.modelEnv = {
      streamFn: (config.streamFn ?? stream) as StreamFunction,
      emit: this.send,
      now: this.now,
      ids: config.ids ?? (() => crypto.randomUUID()),
    };
  }

  async run(prompts: AgentMessage[]): Promise<AgentRunResult> {
    const startedAt = this.now();
    await this.send({ type: "agent_start", runId: this.modelEnv.ids(), timestamp: startedAt });
    let end: RunEnd;
    try {
      const submitted = await this.submitPrompts(prompts);
      end = submitted.blocked
        ? { stopReason: "stopped_by_hook", errorMessage: `The prompt was blocked: ${submitted.blocked}` }
        : await this.loop(submitted.injections);
    } catch (error) {
      end = { stopReason: "error", errorMessage: describeThrown(error) };
      await this.send({ type: "error", source: "loop", message: end.errorMessage! });
    }
    const result: AgentRunResult = {
      messages: this.added,
      answer: assistantText(this.lastAssistant),
      usage: this.usage,
      iterations: this.turn,
      elapsedMs: this.now() - startedAt,
      stopReason: end.stopReason,
    };
    if (end.errorMessage !== undefined) result.errorMessage = end.errorMessage;
    await this.send({ type: "agent_end", ...result });
    return result;
  }

  private async loop(prompts: Injection[]): Promise<RunEnd> {
    const early = await this.poll(this.config.getSteeringMessages, "steering");
    let pending = early.length > 0 ? [...prompts, ...early] : prompts;
    for (;;) {
      // Inner loop: turns while the model calls tools or steering messages wait.
      for (;;) {
        const turn = await this.runTurn(pending);
        if (turn.end) return turn.end;
        pending = await this.poll(this.config.getSteeringMessages, "steering");
        if (!turn.calledTools && pending.length === 0) break;
      }
      // The agent would stop here: follow-ups, then Stop hooks, may start it again.
      pending = await this.poll(this.config.getFollowUpMessages, "follow_up");
      if (pending.length > 0) continue;
      const reason = await this.stopHookReason();
      if (reason !== undefined) {
        pending = [{ message: userMessage(reason, this.now()), kind: "follow_up" }];
        continue;
      }
      return { stopReason: this.lastAssistant?.stopReason === "length" ? "length" : "stop" };
    }
  }

  private async runTurn(pending: Injection[]): Promise<{ end?: RunEnd; calledTools: boolean }> {
    const turn = ++this.turn;
    await this.send({ type: "turn_start", turn, timestamp: this.now() });
    for (const { message, kind } of pending) {
      if (kind) await this.send({ type: "inject", kind, content: messageText(message), message });
      await this.append(message);
    }

    const message = await this.modelTurn();
    this.lastAssistant = message;
    this.messages.push(message);
    this.added.push(message);

    const calls = toolCallsOf(message);
    let results: ToolResultMessage[] = [];
    let end: RunEnd | undefined;
    if (message.stopReason === "error" || message.stopReason === "aborted") {
      const why =
        message.stopReason === "aborted" ? "the model response was aborted" : "the model call failed";
      results = unexecutedResults(calls, `This tool call was not executed: ${why}.`, this.now());
      end = { stopReason: message.stopReason };
      if (message.errorMessage !== undefined) end.errorMessage = message.errorMessage;
    } else if (calls.length > 0 && message.stopReason === "length") {
      results = unexecutedResults(calls, TRUNCATED_CALL_TEXT, this.now());
    } else if (calls.length > 0) {
      const batch = await executeToolBatch(calls, {
        tools: this.tools,
        hooks: this.config.hooks,
        signal: this.signal,
        emit: this.send,
        reportHookFailure: this.reportHookFailure,
        now: this.now,
        config: this.config.toolExecution,
      });
      results = batch.results;
      if (batch.stoppedByHook) end = { stopReason: "stopped_by_hook" };
      else if (batch.terminate) end = { stopReason: "terminated" };
    }
    for (const result of results) await this.append(result);
    await this.send({ type: "turn_end", turn, message, toolResults: results });

    if (!end && this.signal.aborted) end = { stopReason: "aborted" };
    if (!end && this.config.shouldStopAfterTurn) {
      const stop = await this.config.shouldStopAfterTurn({
        turn,
        message,
        toolResults: results,
        messages: this.messages,
      });
      if (stop) end = { stopReason: "stopped_by_caller" };
    }
    return end ? { end, calledTools: calls.length > 0 } : { calledTools: calls.length > 0 };
  }

  /** prepareNextTurn, transformContext, convertToLlm, then the model call. */
  private async modelTurn(): Promise<AssistantMessage> {
    let context: Context;
    try {
      await this.prepareTurn();
      const transformed = this.config.transformContext
        ? await this.config.transformContext(this.messages, this.signal)
        : this.messages;
      const llmMessages = await (this.config.convertToLlm ?? defaultConvertToLlm)(transformed);
      const tools = toolSpecs(this.tools);
      context = { messages: llmMessages };
      if (this.systemPrompt !== undefined) context.systemPrompt = this.systemPrompt;
      if (tools.length > 0) context.tools = tools;
    } catch (error) {
      // A failing seam ends the turn like a failed model call, so the event shape stays the same.
      const message = failed(
        this.model,
        undefined,
        `Preparing the turn failed: ${describeThrown(error)}`,
        this.now(),
      );
      await this.send({ type: "message_start", message });
      await this.send({ type: "message_end", message });
      return message;
    }
    return callModel(this.model, context, this.streamOptions, this.modelEnv);
  }

  private async prepareTurn(): Promise<void> {
    if (!this.config.prepareNextTurn) return;
    // biome-ignore lint/suspicious/noConfusingVoidType: handlers that return nothing must fit
    const patch: TurnPatch | undefined | void = await this.config.prepareNextTurn({
      turn: this.turn,
      messages: this.messages,
      model: this.model,
      thinkingLevel: this.thinkingLevel,
      systemPrompt: this.systemPrompt,
      tools: this.tools,
      signal: this.signal,
      emit: this.send,
    });
    if (!patch) return;
    const update: Extract<AgentEvent, { type: "context_update" }> = { type: "context_update" };
    let changed = false;
    if (patch.messages) {
      this.messages = patch.messages.slice();
      update.messages = patch.messages;
      changed = true;
    }
    if (patch.model) {
      this.model = update.model = patch.model;
      changed = true;
    }
    if (patch.thinkingLevel) {
      this.thinkingLevel = update.thinkingLevel = patch.thinkingLevel;
      this.streamOptions = this.buildStreamOptions();
      changed = true;
    }
    if (patch.systemPrompt !== undefined) {
      this.systemPrompt = update.systemPrompt = patch.systemPrompt;
      changed = true;
    }
    if (patch.tools) {
      this.tools = update.tools = patch.tools;
      changed = true;
    }
    if (changed) await this.send(update);
  }

  private async submitPrompts(
    prompts: AgentMessage[],
  ): Promise<{ injections: Injection[]; blocked?: string }> {
    const hooks = this.config.hooks;
    const injections: Injection[] = [];
    for (let message of prompts) {
      if (hooks && hooks.count("UserPromptSubmit") > 0 && (message as { role?: unknown }).role === "user") {
        const user = message as Extract<AgentMessage, { role: "user" }>;
        const decision = await hooks.runUserPromptSubmit(
          { message: user, prompt: messageText(user) },
          this.reportHookFailure,
          this.signal,
        );
        if (decision.blocked !== undefined) return { injections: [], blocked: decision.blocked };
        message = decision.message;
      }
      injections.push({ message });
    }
    return { injections };
  }

  private async stopHookReason(): Promise<string | undefined> {
    const hooks = this.config.hooks;
    if (!hooks || !this.lastAssistant || hooks.count("Stop") === 0) return undefined;
    const reason = await hooks.runStop(
      { lastMessage: this.lastAssistant, stopHookActive: this.stopHookActive },
      this.reportHookFailure,
      this.signal,
    );
    if (reason !== undefined) this.stopHookActive = true;
    return reason;
  }

  private async poll(
    source: (() => AgentMessage[] | Promise<AgentMessage[]>) | undefined,
    kind: InjectKind,
  ): Promise<Injection[]> {
    if (!source) return NONE;
    const messages = await source();
    if (!messages || messages.length === 0) return NONE;
    return messages.map((message) => ({ message, kind }));
  }

  private async append(message: AgentMessage): Promise<void> {
    await this.send({ type: "message_start", message });
    await this.send({ type: "message_end", message });
    this.messages.push(message);
    this.added.push(message);
  }

  private buildStreamOptions(): StreamOptions {
    return { ...this.config.streamOptions, signal: this.signal, reasoning: this.thinkingLevel };
  }

  private readonly reportHookFailure: HookFailureReporter = (failure) => {
    const event: AgentEvent = {
      type: "error",
      source: "hook",
      message: `${failure.event} hook "${failure.hookName}" failed${failure.failClosed ? " (fail-closed)" : ""}: ${failure.message}`,
      hookEvent: failure.event,
      hookName: failure.hookName,
    };
    if (failure.toolCallId !== undefined) event.toolCallId = failure.toolCallId;
    return this.send(event);
  };

  /** Every event passes here: totals are counted from `model_call_end`, so auxiliary calls add up too. */
  private readonly send = (event: AgentEvent): Promise<void> => {
    if (event.type === "model_call_end") addUsageInto(this.usage, event.usage);
    try {
      const pending = this.sink(event);
      return pending ? pending.then(undefined, this.onSinkError) : RESOLVED;
    } catch (error) {
      this.onSinkError(error);
      return RESOLVED;
    }
  };

  /** A throwing consumer must not break the run; it is told once. */
  private readonly onSinkError = (error: unknown): void => {
    if (this.sinkFailed) return;
    this.sinkFailed = true;
    try {
      void Promise.resolve(
        this.sink({ type: "error", source: "listener", message: describeThrown(error) }),
      ).catch(() => {});
    } catch {
      // The consumer fails on every event; nothing more to tell it.
    }
  };
}
