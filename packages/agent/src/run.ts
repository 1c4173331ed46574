import type {
  AssistantMessage,
  Context,
  Model,
  StreamOptions,
  ThinkingLevel,
  ToolResultMessage,
} from "@tern/ai";
import { assistantText, defaultConvertToLlm, messageText, toolCallsOf, userMessage } from "./messages.js";
import { callModel, failed } from "./model-call.js";
import type { PolicyRun } from "./policy.js";
import { PolicyRunner } from "./policy-runner.js";
import { type OpenRun, openRun, type RunEnd } from "./run-bracket.js";
import type { RunEnv } from "./run-env.js";
import { requestText, submitPrompts } from "./run-prompts.js";
import { executeToolBatch, TRUNCATED_CALL_TEXT, unexecutedResults } from "./tool-batch.js";
import { describeThrown } from "./tool-result.js";
import { toolSpecs } from "./tool-schema.js";
import type {
  AgentContext,
  AgentEvent,
  AgentLoopConfig,
  AgentMessage,
  AgentRunResult,
  AnyAgentTool,
  InjectKind,
  TurnPatch,
} from "./types.js";

interface Injection {
  message: AgentMessage;
  /** Undefined for the run's own prompts. */
  kind?: InjectKind;
}

interface TurnOutcome {
  end?: RunEnd;
  calledTools: boolean;
  /** A policy asked to run another turn after a failed model call. */
  retry: boolean;
  /** Messages policies want before the next model call (reflection, cycle warning). */
  injections: Injection[];
}

const NONE: Injection[] = [];

/** One run: the double loop over turns, follow-ups and stop hooks. */
export class Run {
  private messages: AgentMessage[];
  private readonly added: AgentMessage[] = [];
  private model: Model;
  private thinkingLevel: ThinkingLevel;
  private systemPrompt: string | undefined;
  private tools: AnyAgentTool[];
  private streamOptions: StreamOptions;
  private readonly signal: AbortSignal;
  private readonly now: () => number;
  /** The run's environment with the policies' model adapters in front of the model seam. */
  private readonly turnEnv: RunEnv;
  private readonly policies: PolicyRunner;
  private readonly handle: PolicyRun;
  private turn = 0;
  private prompt = "";
  private streamDeltas = true;
  private answer: string | undefined;
  private lastAssistant: AssistantMessage | undefined;
  private stopHookActive = false;
  private readonly send: RunEnv["emit"];

  constructor(
    context: AgentContext,
    private readonly config: AgentLoopConfig,
    private readonly env: RunEnv,
  ) {
    this.send = env.emit;
    this.messages = context.messages.slice();
    this.model = config.model;
    this.thinkingLevel = config.thinkingLevel ?? "off";
    this.systemPrompt = context.systemPrompt;
    this.tools = context.tools ?? [];
    this.signal = env.signal;
    this.now = env.now;
    this.streamOptions = this.buildStreamOptions();
    this.policies = new PolicyRunner(config.policies ?? [], this.send);
    this.handle = this.policyHandle();
    // Auxiliary calls use the plain model seam; loop turns go through the policies' model adapters.
    this.turnEnv = { ...env, streamFn: this.policies.wrapStream(env.streamFn) };
  }

  /** Runs the prompts inside `opened`, or inside a bracket of its own (the usual case). */
  async run(prompts: AgentMessage[], opened?: OpenRun): Promise<AgentRunResult> {
    const bracket = opened ?? (await openRun(this.env));
    let end: RunEnd;
    try {
      const submitted = await submitPrompts(prompts, this.env.hooks, this.env.reportHookFailure, this.signal);
      if (submitted.blocked !== undefined) {
        end = { stopReason: "stopped_by_hook", errorMessage: `The prompt was blocked: ${submitted.blocked}` };
      } else {
        this.prompt = requestText(submitted.messages, this.messages);
        await this.policies.start(this.handle);
        end = await this.loop(submitted.messages.map((message) => ({ message })));
      }
    } catch (error) {
      end = { stopReason: "error", errorMessage: describeThrown(error) };
      await this.send({ type: "error", source: "loop", message: end.errorMessage! });
    }
    const answer = await this.policies.onRunEnd(this.handle, {
      stopReason: end.stopReason,
      answer: this.answer ?? assistantText(this.lastAssistant),
    });
    return bracket.close({ ...end, messages: this.added, answer, iterations: this.turn });
  }

  private async loop(prompts: Injection[]): Promise<RunEnd> {
    const early = await this.steering();
    let pending = early.length > 0 ? [...prompts, ...early] : prompts;
    for (;;) {
      // Inner loop: turns while the model calls tools, messages wait, or a policy rejects the answer.
      for (;;) {
        const stop = await this.policies.beforeTurn(this.handle);
        if (stop) {
          if (stop.answer !== undefined) this.answer = stop.answer;
          const { stopReason, errorMessage, errorKind } = stop;
          return {
            stopReason,
            ...(errorMessage !== undefined && { errorMessage }),
            ...(errorKind !== undefined && { errorKind }),
          };
        }
        const turn = await this.runTurn(pending);
        if (turn.end) return turn.end;
        const steering = await this.steering();
        pending = steering.length > 0 ? [...turn.injections, ...steering] : turn.injections;
        if (turn.calledTools || turn.retry || pending.length > 0) continue;
        // A final answer with nothing queued: policies may still reject it.
        pending = await this.policies.onFinalAnswer(this.handle, this.lastAssistant!);
        if (pending.length === 0) break;
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

  private async runTurn(pending: Injection[]): Promise<TurnOutcome> {
    const turn = ++this.turn;
    await this.send({ type: "turn_start", turn, timestamp: this.now() });
    for (const { message, kind } of pending) {
      if (kind) await this.send({ type: "inject", kind, content: messageText(message), message });
      await this.append(message);
    }

    const { message, tools } = await this.modelTurn();
    this.lastAssistant = message;
    this.messages.push(message);
    this.added.push(message);

    const calls = toolCallsOf(message);
    let results: ToolResultMessage[] = [];
    let end: RunEnd | undefined;
    let retry = false;
    let executed = false;
    let injections: Injection[] = NONE;
    if (message.stopReason === "error" || message.stopReason === "aborted") {
      const why =
        message.stopReason === "aborted" ? "the model response was aborted" : "the model call failed";
      results = unexecutedResults(calls, `This tool call was not executed: ${why}.`, this.now());
      retry = message.stopReason === "error" && (await this.policies.onModelError(this.handle, message));
      if (!retry) {
        end = { stopReason: message.stopReason };
        if (message.errorMessage !== undefined) end.errorMessage = message.errorMessage;
      }
    } else if (calls.length > 0 && message.stopReason === "length") {
      results = unexecutedResults(calls, TRUNCATED_CALL_TEXT, this.now());
    } else if (calls.length > 0) {
      executed = true;
      const batch = await executeToolBatch(calls, this.env, { tools, config: this.config.toolExecution });
      results = batch.results;
      if (batch.stoppedByHook) end = { stopReason: "stopped_by_hook" };
      else if (batch.terminate) end = { stopReason: "terminated" };
    }
    for (const result of results) await this.append(result);
    // Policies see every batch that ran (the iteration tally, the synthesis trace); what they
    // inject is dropped if the run ends here.
    if (executed) injections = await this.policies.afterToolBatch(this.handle, { calls, results });
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
    const outcome: TurnOutcome = { calledTools: calls.length > 0, retry, injections };
    if (end) outcome.end = end;
    return outcome;
  }

  /**
   * prepareNextTurn, the policies (beforeModelCall, then the tool filter), transformContext,
   * convertToLlm, then the model call. Returns the tools offered, which are the ones the batch may run.
   */
  private async modelTurn(): Promise<{ message: AssistantMessage; tools: readonly AnyAgentTool[] }> {
    let context: Context;
    let offered: readonly AnyAgentTool[] = this.tools;
    try {
      await this.prepareTurn();
      await this.policies.beforeModelCall(this.handle);
      offered = await this.policies.tools(this.tools, this.handle);
      const transformed = this.config.transformContext
        ? await this.config.transformContext(this.messages, this.signal)
        : this.messages;
      const llmMessages = await (this.config.convertToLlm ?? defaultConvertToLlm)(transformed);
      const tools = toolSpecs(offered);
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
      return { message, tools: offered };
    }
    const { model, streamOptions, turnEnv } = this;
    const message = await callModel({
      model,
      context,
      streamOptions,
      env: turnEnv,
      deltas: this.streamDeltas,
    });
    return { message, tools: offered };
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
    if (patch) await this.applyPatch(patch);
  }

  /** Applies a change to the run's context and announces it with `context_update`. */
  private async applyPatch(patch: TurnPatch): Promise<void> {
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

  private async stopHookReason(): Promise<string | undefined> {
    const hooks = this.env.hooks;
    if (!hooks || !this.lastAssistant || hooks.count("Stop") === 0) return undefined;
    const reason = await hooks.runStop(
      { lastMessage: this.lastAssistant, stopHookActive: this.stopHookActive },
      this.env.reportHookFailure,
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

  /** Drains the steering queue; policies may reshape what it held (interrupts). */
  private async steering(): Promise<Injection[]> {
    const drained = await this.poll(this.config.getSteeringMessages, "steering");
    if (drained.length === 0) return drained;
    const shaped = await this.policies.onSteering(
      this.handle,
      drained.map((injection) => injection.message),
    );
    return shaped ?? drained;
  }

  /** The narrow view policies get of this run. */
  private policyHandle(): PolicyRun {
    const run = this;
    return {
      get turn() {
        return run.turn;
      },
      get messages() {
        return run.messages;
      },
      get model() {
        return run.model;
      },
      get tools() {
        return run.tools;
      },
      get systemPrompt() {
        return run.systemPrompt;
      },
      get streamOptions() {
        return run.streamOptions;
      },
      get prompt() {
        return run.prompt;
      },
      signal: this.signal,
      now: this.now,
      newId: () => this.env.ids(),
      streamFn: this.env.streamFn,
      emit: this.send,
      replaceMessages: (messages) => this.applyPatch({ messages }),
      setTools: (tools) => this.applyPatch({ tools }),
      setStreamDeltas: (enabled) => {
        this.streamDeltas = enabled;
      },
      callModel: (context, purpose, options = {}) => {
        const { model, onEvent, ...rest } = options;
        const streamOptions: StreamOptions = { ...this.streamOptions, ...rest, signal: this.signal };
        const call = { model: model ?? this.model, context, streamOptions, env: this.env, purpose };
        return callModel({ ...call, messageEvents: false, ...(onEvent ? { onEvent } : {}) });
      },
    };
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
}
