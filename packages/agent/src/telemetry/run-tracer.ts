// Turns one run's event stream into spans: `invoke_agent <agent>` for the run, `chat <model>` for
// every model call (auxiliary ones carry their purpose), `execute_tool <name>` for every tool call,
// all children of the run span (parallel tools are siblings). Nested runs open no span of their
// own: a plan step's calls and tools are children of the plan's run span, a sub-agent's are
// children of its `task` call's span (they arrive marked with its `parentToolCallId`). Policy injections, compactions,
// retries, errors and plan progress become span events. It only observes: it never throws into
// the run, and `close` ends whatever is still open, so no span outlives its run on any path
// (error, abort, a consumer that stopped reading, a crash before agent_end).

import {
  type Attributes,
  type Context,
  context,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import type { AssistantMessage, Model, Usage } from "@tern/ai";
import type { AgentEvent, AgentMessage } from "../types.js";
import { contentAttribute, outcomeText, semconvMessage } from "./content.js";
import type { ResolvedTelemetry } from "./options.js";
import { ERROR_TYPE, finishReason, GEN_AI, OPERATION, TERN } from "./semconv.js";

/** error.type for spans still open when their run ended without closing them. */
const UNFINISHED = "unfinished";

type Ev<T extends AgentEvent["type"]> = Extract<AgentEvent, { type: T }>;

export class RunTracer {
  private readonly root: Span;
  /** The parent's context with the run's span in it: active while the run executes. */
  readonly runContext: Context;
  private readonly calls = new Map<string, Span>();
  private readonly tools = new Map<string, Span>();
  /** The loop's latest model call, which the next assistant message_end belongs to. */
  private lastCall: Span | undefined;
  private turn = 0;
  /** A loop turn's model call has started: user messages from here on are not the prompt. */
  private answered = false;
  private ended = false;
  private readonly inputs: unknown[] = [];

  constructor(
    private readonly telemetry: ResolvedTelemetry,
    model: Model,
    parent: Context = context.active(),
  ) {
    const attributes = requestAttributes(OPERATION.agent, model.provider, model.id, telemetry);
    attributes[GEN_AI.agentName] = telemetry.agentName;
    this.root = telemetry.tracer.startSpan(
      `${OPERATION.agent} ${telemetry.agentName}`,
      { kind: SpanKind.INTERNAL, attributes },
      parent,
    );
    this.runContext = trace.setSpan(parent, this.root);
  }

  /** False without an SDK (the API's no-op span) or when the sampler dropped this run. */
  get recording(): boolean {
    return this.root.isRecording();
  }

  /** Text a model, provider or tool wrote (an error message), without the secrets the redactor knows. */
  private readonly text = (value: string): string => this.telemetry.redact(value);

  /** Opted-in content as an attribute: redacted whole, then cut (a cut key would escape the redactor). */
  private readonly content = (value: unknown): string => contentAttribute(value, this.telemetry.redact);

  /** Sees one event. Never throws: tracing must not break a run. */
  readonly observe = (event: AgentEvent): void => {
    if (this.ended) return;
    try {
      this.handle(event);
    } catch {
      // A misbehaving SDK or exporter; the run goes on untraced from here.
    }
  };

  /** Ends every open span; `error` marks the run span failed (the run crashed before agent_end). */
  close(error?: unknown): void {
    if (this.ended) return;
    this.endOpen();
    if (error !== undefined) {
      this.root.setAttribute(ERROR_TYPE, UNFINISHED);
      this.root.setStatus({
        code: SpanStatusCode.ERROR,
        message: this.text(String((error as Error)?.message ?? error)),
      });
    }
    this.ended = true;
    this.root.end();
  }

  private handle(event: AgentEvent): void {
    switch (event.type) {
      case "agent_start":
        this.root.setAttribute(TERN.runId, event.runId);
        return;
      case "turn_start":
        this.turn = event.turn;
        return;
      case "model_call_start":
        this.callStart(event);
        return;
      case "model_retry":
        this.calls.get(event.callId)?.addEvent(TERN.retry, {
          "tern.retry.attempt": event.attempt,
          "tern.retry.max_attempts": event.maxAttempts,
          "tern.retry.delay_ms": event.delayMs,
          [ERROR_TYPE]: event.errorKind,
          ...(event.status !== undefined && { "http.response.status_code": event.status }),
        });
        return;
      case "message_end":
        this.messageEnd(event.message);
        return;
      case "model_call_end":
        this.callEnd(event);
        return;
      case "tool_execution_start":
        this.toolStart(event);
        return;
      case "tool_execution_end":
        this.toolEnd(event);
        return;
      case "inject":
        this.root.addEvent(TERN.inject, {
          "tern.inject.kind": event.kind,
          [TERN.turn]: this.turn,
          ...(this.telemetry.captureContent && { "tern.inject.content": this.content(event.content) }),
        });
        return;
      case "compaction_start":
        this.root.addEvent(TERN.compactionStart, {
          "tern.compaction.reason": event.reason,
          "tern.compaction.tokens_before": event.tokensBefore,
          "tern.compaction.messages_before": event.messagesBefore,
        });
        return;
      case "compaction_end":
        this.root.addEvent(TERN.compactionEnd, {
          "tern.compaction.reason": event.reason,
          "tern.compaction.tokens_before": event.tokensBefore,
          "tern.compaction.tokens_after": event.tokensAfter,
          "tern.compaction.messages_before": event.messagesBefore,
          "tern.compaction.messages_kept": event.messagesKept,
          ...(event.errorMessage !== undefined && { "tern.compaction.error": this.text(event.errorMessage) }),
        });
        return;
      case "error":
        this.root.addEvent(TERN.error, {
          "tern.error.source": event.source,
          "tern.error.message": this.text(event.message),
          ...(event.hookName !== undefined && { "tern.hook.name": event.hookName }),
          ...(event.toolCallId !== undefined && { [GEN_AI.toolCallId]: event.toolCallId }),
        });
        return;
      case "phase":
        this.root.addEvent(TERN.phase, { "tern.phase": event.phase });
        return;
      case "plan_start":
        this.root.addEvent(TERN.plan, {
          "tern.plan.event": "start",
          "tern.plan.round": event.round,
          "tern.plan.steps": event.steps.length,
        });
        return;
      case "plan_step_end":
        this.root.addEvent(TERN.plan, {
          "tern.plan.event": "step_end",
          "tern.plan.round": event.round,
          [TERN.stepId]: event.stepId,
          "tern.plan.step_status": event.status,
        });
        return;
      case "plan_replan":
        this.root.addEvent(TERN.plan, {
          "tern.plan.event": "replan",
          "tern.plan.round": event.round,
          "tern.plan.reason": event.reason,
        });
        return;
      case "agent_end":
        this.runEnd(event);
        return;
      default:
        return;
    }
  }

  private callStart(event: Ev<"model_call_start">): void {
    const attributes = requestAttributes(OPERATION.chat, event.provider, event.model, this.telemetry);
    attributes[TERN.purpose] = event.purpose;
    if (this.turn > 0) attributes[TERN.turn] = this.turn;
    const span = this.telemetry.tracer.startSpan(
      `${OPERATION.chat} ${event.model}`,
      { kind: SpanKind.CLIENT, attributes },
      this.parentOf(event),
    );
    this.calls.set(event.callId, span);
    this.lastCall = span;
    if (event.purpose === "turn") this.answered = true;
  }

  private messageEnd(message: AgentMessage): void {
    const role = (message as { role?: string }).role;
    if (role === "assistant") {
      const assistant = message as AssistantMessage;
      const span = this.lastCall;
      if (!span) return;
      span.setAttribute(GEN_AI.responseModel, assistant.model);
      if (assistant.responseId) span.setAttribute(GEN_AI.responseId, assistant.responseId);
      if (assistant.errorKind) span.setAttribute(ERROR_TYPE, assistant.errorKind);
      if (this.telemetry.captureContent) {
        const output = semconvMessage(assistant, finishReason(assistant.stopReason));
        span.setAttribute(GEN_AI.outputMessages, this.content([output]));
      }
    } else if (this.telemetry.captureContent && !this.answered && role === "user") {
      // The run's prompts (before its first turn's model call); later user messages are injections.
      const input = semconvMessage(message);
      if (input) this.inputs.push(input);
    }
  }

  private callEnd(event: Ev<"model_call_end">): void {
    const span = this.calls.get(event.callId);
    if (!span) return;
    this.calls.delete(event.callId);
    if (this.lastCall === span) this.lastCall = undefined;
    span.setAttributes(usageAttributes(event.usage));
    span.setAttribute(GEN_AI.finishReasons, [finishReason(event.stopReason)]);
    if (event.stopReason === "error" || event.stopReason === "aborted") {
      // message_end may already have set the provider's error kind.
      span.setAttribute(ERROR_TYPE, event.errorKind ?? event.stopReason);
      span.setStatus({
        code: SpanStatusCode.ERROR,
        message: this.text(event.errorMessage ?? event.stopReason),
      });
    }
    span.end();
  }

  private toolStart(event: Ev<"tool_execution_start">): void {
    const attributes: Attributes = {
      [GEN_AI.operation]: OPERATION.tool,
      [GEN_AI.toolName]: event.toolName,
      [GEN_AI.toolCallId]: event.toolCallId,
      [GEN_AI.toolType]: "function",
    };
    if (this.turn > 0) attributes[TERN.turn] = this.turn;
    if (event.stepId !== undefined) attributes[TERN.stepId] = event.stepId;
    if (this.telemetry.captureContent) attributes[GEN_AI.toolArguments] = this.content(event.args);
    const span = this.telemetry.tracer.startSpan(
      `${OPERATION.tool} ${event.toolName}`,
      { kind: SpanKind.INTERNAL, attributes },
      this.parentOf(event),
    );
    this.tools.set(event.toolCallId, span);
  }

  /** A sub-agent's call or tool belongs under its `task` call's span; anything else under the run's. */
  private parentOf(event: { parentToolCallId?: string }): Context {
    const task = event.parentToolCallId === undefined ? undefined : this.tools.get(event.parentToolCallId);
    return task ? trace.setSpan(this.runContext, task) : this.runContext;
  }

  private toolEnd(event: Ev<"tool_execution_end">): void {
    const span = this.tools.get(event.toolCallId);
    if (!span) return;
    this.tools.delete(event.toolCallId);
    if (event.blocked) span.setAttribute(TERN.permission, event.blocked);
    if (this.telemetry.captureContent)
      span.setAttribute(GEN_AI.toolResult, this.content(outcomeText(event.result)));
    if (event.isError) {
      span.setAttribute(ERROR_TYPE, event.blocked ?? "tool_error");
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  }

  private runEnd(event: Ev<"agent_end">): void {
    const root = this.root;
    root.setAttributes(usageAttributes(event.usage));
    root.setAttribute(TERN.stopReason, event.stopReason);
    root.setAttribute(TERN.iterations, event.iterations);
    if (this.telemetry.captureContent) {
      if (this.inputs.length > 0) root.setAttribute(GEN_AI.inputMessages, this.content(this.inputs));
      const answer = { role: "assistant", parts: [{ type: "text", content: event.answer }] };
      root.setAttribute(GEN_AI.outputMessages, this.content([answer]));
    }
    if (event.stopReason === "error" || event.stopReason === "aborted") {
      root.setAttribute(ERROR_TYPE, event.stopReason);
      root.setStatus({
        code: SpanStatusCode.ERROR,
        message: this.text(event.errorMessage ?? event.stopReason),
      });
    }
    this.close();
  }

  /** Model calls and tools the run never closed (abort, crash): ended as failed. */
  private endOpen(): void {
    for (const span of [...this.calls.values(), ...this.tools.values()]) {
      span.setAttribute(ERROR_TYPE, UNFINISHED);
      span.setStatus({ code: SpanStatusCode.ERROR, message: "the run ended before this finished" });
      span.end();
    }
    this.calls.clear();
    this.tools.clear();
    this.lastCall = undefined;
  }
}

/** What the run span and every model call span say about the request. */
function requestAttributes(
  operation: string,
  provider: string,
  model: string,
  telemetry: ResolvedTelemetry,
): Attributes {
  const attributes: Attributes = {
    [GEN_AI.operation]: operation,
    [GEN_AI.provider]: provider,
    [GEN_AI.system]: provider,
    [GEN_AI.requestModel]: model,
  };
  if (telemetry.conversationId) attributes[GEN_AI.conversationId] = telemetry.conversationId;
  return attributes;
}

function usageAttributes(usage: Usage): Attributes {
  const attributes: Attributes = {
    // The conventions count cached prompt tokens in the input; tern's `input` excludes them.
    [GEN_AI.inputTokens]: usage.input + usage.cacheRead + usage.cacheWrite,
    [GEN_AI.outputTokens]: usage.output,
  };
  if (usage.cacheRead > 0) attributes[GEN_AI.cacheReadTokens] = usage.cacheRead;
  if (usage.cacheWrite > 0) attributes[GEN_AI.cacheCreationTokens] = usage.cacheWrite;
  if (usage.cost.total > 0) attributes[TERN.costUsd] = usage.cost.total;
  return attributes;
}
