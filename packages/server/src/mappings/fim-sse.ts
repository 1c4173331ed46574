// FIM One's SSE protocol as a pure mapping of the engine's events. Channels and payloads:
//   step    {type:"thinking", status:"start"|"done", iteration, reasoning?, text?}  (text: the
//           model's own words of that turn, which reasoning also holds before a tool call)
//           {type:"iteration", status:"start"|"done", iteration, tool_call_id, tool_name, tool_args,
//            reasoning, observation?, error?, iter_elapsed?} (one per tool call)
//           {type:"answer", status:"start"}
//   answer  {status:"start"} {status:"delta", content} {status:"done", error?}
//           A second {status:"start"} restarts the answer: the deltas before it are void (a
//           failed synthesis falls back to the loop's own text). The deltas after the last start
//           always add up to the answer; `error` on done says why the fallback was used.
//   text    {delta}  the model's text as it streams (live only, never replayed: until the turn
//           ends nobody knows whether it is the answer or the words before a tool call)
//   compact {original_messages, kept_messages}
//   phase   {phase, ...detail in snake_case}                 (e.g. selecting_tools, total_tools)
//           {phase:"retrying", purpose, attempt, max_attempts, delay_ms, error_kind, error_message,
//            status?}  a model call failed transiently; attempt `attempt` follows after delay_ms
//           plan mode: {phase:"planning", round}
//                      {phase:"executing", round, steps:[{id, task, dependencies, tool_hint, model_hint}]}
//                      {phase:"analyzing", round, achieved, confidence, reasoning, final_answer,
//                       results:[{step_id, status, result, error}]}
//                      {phase:"replanning", round, reason:"low_confidence"|"user_message", message?}
//   step_progress {round, step_id, status:"running", task, model, started_at}
//                 {round, step_id, status:"done"|"failed"|"skipped"|"aborted", task, result, error,
//                  started_at, duration_ms, usage}                        (plan mode, one per step)
//   subagent {status:"running", tool_call_id, agent, task, model, depth}
//            {status:"done"|"failed"|"aborted", tool_call_id, agent, answer, error?, turns,
//             duration_ms, usage}   a `task` call's sub-agent; its own iterations carry
//             parent_tool_call_id (that call's id) and are not loop turns of the run; step_id
//             when a plan step made the call
//   todo    {items:[{id, content, status:"pending"|"in_progress"|"done"}]}  after each todo_write
//   inject  {type:"inject", content, kind}
//   permission {status:"asked", id, tool, kind, description, tool_description, args, options,
//               expires_at}  (answer with POST /api/sessions/:id/permissions/:id)
//              {status:"allowed"|"denied", id, reason?}
//   done    {answer, iterations, elapsed, usage:{prompt_tokens, completion_tokens, total_tokens,
//            cost}, stop_reason, error?}                           (always the run's last frame; also
//                                                             for a run that could not start)
// An iteration is a loop turn. The answer streams live when the run synthesises it
// (answer_start/delta/end); otherwise the loop's final text is sent as one delta at the run's end,
// since only then is it known to be the answer. State lives in one mapper per run.

import { type AgentEvent, messageText, type NestedPlace, NestedRuns, type ToolOutcome } from "@tern/agent";
import type { AssistantMessage, Usage } from "@tern/ai";
import type { ServerEvent } from "../types.js";

export type FimChannel =
  | "step"
  | "answer"
  | "text"
  | "compact"
  | "phase"
  | "step_progress"
  | "subagent"
  | "todo"
  | "inject"
  | "permission"
  | "done";

type PermissionRequestEvent = Extract<ServerEvent, { type: "permission_request" }>;

/** A permission question as HTTP clients see it (the SSE frame, and GET /api/sessions/:id). */
export function permissionView(event: PermissionRequestEvent): Record<string, unknown> {
  const rules = event.suggestedRules ?? [];
  return {
    status: "asked",
    id: event.requestId,
    tool: event.toolName,
    kind: event.kind,
    description: event.summary,
    tool_description: event.toolDescription,
    args: event.args,
    options: [
      { id: "allow_once", label: "Allow once" },
      ...(rules.length > 0 ? [{ id: "allow_always", label: `Always allow ${rules.join(", ")}`, rules }] : []),
      { id: "deny", label: "Deny", message: "optional: tell the model why" },
    ],
    ...(event.expiresAt !== undefined ? { expires_at: new Date(event.expiresAt).toISOString() } : {}),
  };
}

export interface SseFrame {
  event: FimChannel;
  data: Record<string, unknown>;
}

type Of<T extends AgentEvent["type"]> = Extract<AgentEvent, { type: T }>;

export class FimMapper {
  private iteration = 0;
  private reasoning = "";
  private answerStepSent = false;
  private answerStreamed = false;
  /** What the answer deltas since the last start add up to. */
  private answerSoFar = "";
  private readonly toolArgs = new Map<string, Record<string, unknown>>();
  /** The current round's step results, for the analyzing frame. */
  private readonly stepResults = new Map<string, Record<string, unknown>>();
  /** A plan run has no loop turns: its closing assistant message is the answer, not a thinking step. */
  private planRun = false;
  private readonly nesting = new NestedRuns();

  map(event: ServerEvent): SseFrame[] {
    const place = this.nesting.place(event);
    switch (event.type) {
      case "agent_start":
        this.reset();
        return [];
      case "turn_start":
        this.iteration = event.turn;
        this.reasoning = "";
        return [step({ type: "thinking", status: "start", iteration: event.turn })];
      case "message_update":
        if (event.assistantEvent.type !== "text_delta" || this.answerStreamed) return [];
        return [{ event: "text", data: { delta: event.assistantEvent.delta } }];
      case "message_end":
        return this.messageEnd(event);
      case "tool_execution_start":
        this.toolArgs.set(event.toolCallId, event.args);
        return [
          step({
            ...this.iterationFields(event.toolCallId, event.toolName, event.args, place.stepId),
            ...parentField(place.parentToolCallId),
            status: "start",
          }),
        ];
      case "tool_execution_end":
        return [this.toolEnd(event, place), ...todoFrame(event)];
      case "subagent_start":
        return [
          {
            event: "subagent",
            data: {
              status: "running",
              tool_call_id: event.parentToolCallId,
              agent: event.agent,
              task: event.task,
              model: event.model,
              depth: event.depth,
              ...stepField(place.stepId),
            },
          },
        ];
      case "subagent_end":
        return [
          {
            event: "subagent",
            data: {
              status: event.status,
              tool_call_id: event.parentToolCallId,
              agent: event.agent,
              answer: event.answer,
              ...(event.error !== undefined ? { error: event.error } : {}),
              turns: event.turns,
              duration_ms: event.durationMs,
              usage: event.usage,
              ...stepField(place.stepId),
            },
          },
        ];
      case "phase":
        return [{ event: "phase", data: { phase: event.phase, ...snakeCase(event.detail ?? {}) } }];
      case "model_retry":
        return [{ event: "phase", data: retrying(event) }];
      case "plan_start":
        this.planRun = true;
        this.stepResults.clear();
        return [{ event: "phase", data: { phase: "executing", round: event.round, steps: event.steps } }];
      case "plan_step_start":
        return [
          progress({
            round: event.round,
            step_id: event.stepId,
            status: "running",
            task: event.task,
            model: event.model,
            started_at: new Date(event.timestamp).toISOString(),
          }),
        ];
      case "plan_step_end":
        return [this.stepEnd(event)];
      case "plan_analysis":
        return [
          {
            event: "phase",
            data: {
              phase: "analyzing",
              round: event.round,
              achieved: event.achieved,
              confidence: event.confidence,
              reasoning: event.reasoning,
              final_answer: event.final_answer,
              results: [...this.stepResults.values()],
            },
          },
        ];
      case "plan_replan":
        return [
          {
            event: "phase",
            data: {
              phase: "replanning",
              round: event.round,
              reason: event.reason,
              ...(event.message !== undefined ? { message: event.message } : {}),
            },
          },
        ];
      case "inject":
        return [{ event: "inject", data: { type: "inject", content: event.content, kind: event.kind } }];
      case "compaction_end":
        if (event.errorMessage !== undefined) return [];
        return [
          {
            event: "compact",
            data: { original_messages: event.messagesBefore, kept_messages: event.messagesKept },
          },
        ];
      case "permission_request":
        return [{ event: "permission", data: permissionView(event) }];
      case "permission_result":
        return [
          {
            event: "permission",
            data: {
              status: event.allow ? "allowed" : "denied",
              id: event.requestId,
              ...(event.reason !== undefined ? { reason: event.reason } : {}),
            },
          },
        ];
      case "answer_start":
        this.answerStreamed = true;
        this.answerSoFar = "";
        return [...this.answerStep(), answer({ status: "start" })];
      case "answer_delta":
        this.answerSoFar += event.delta;
        return [answer({ status: "delta", content: event.delta })];
      case "answer_end":
        return this.answerEnd(event);
      case "agent_end":
        return this.runEnd(event);
      case "run_failed":
        return [
          {
            event: "done",
            data: { answer: "", iterations: 0, elapsed: 0, stop_reason: "error", error: event.message },
          },
        ];
      default:
        return [];
    }
  }

  private reset(): void {
    this.iteration = 0;
    this.reasoning = "";
    this.answerStepSent = false;
    this.answerStreamed = false;
    this.answerSoFar = "";
    this.toolArgs.clear();
    this.stepResults.clear();
    this.planRun = false;
  }

  private stepEnd(event: Of<"plan_step_end">): SseFrame {
    const result = {
      step_id: event.stepId,
      status: event.status,
      result: event.result,
      error: event.error ?? null,
    };
    this.stepResults.set(event.stepId, result);
    return progress({
      round: event.round,
      ...result,
      task: event.task,
      started_at: new Date(event.startedAt).toISOString(),
      duration_ms: event.durationMs,
      usage: usageOf(event.usage),
    });
  }

  private messageEnd(event: Of<"message_end">): SseFrame[] {
    const message = event.message as AssistantMessage;
    if (message.role !== "assistant" || this.planRun) return [];
    this.reasoning = reasoningOf(message);
    return [
      step({
        type: "thinking",
        status: "done",
        iteration: this.iteration,
        reasoning: this.reasoning,
        // The model's own words on their own (FIM's reasoning folds them in before a tool call).
        // Joined as the run's answer and the reasoning above join them (messageText).
        text: messageText(message),
      }),
    ];
  }

  private iterationFields(
    toolCallId: string,
    toolName: string,
    args: Record<string, unknown>,
    stepId?: string,
  ) {
    return {
      type: "iteration",
      iteration: this.iteration,
      // Tells apart parallel calls of one tool (a page matches each "done" to its "start").
      tool_call_id: toolCallId,
      tool_name: toolName,
      tool_args: args,
      reasoning: this.reasoning,
      ...(stepId !== undefined ? { step_id: stepId } : {}),
    };
  }

  private toolEnd(event: Of<"tool_execution_end">, place: NestedPlace): SseFrame {
    const text = outcomeText(event.result);
    const args = this.toolArgs.get(event.toolCallId) ?? {};
    return step({
      ...this.iterationFields(event.toolCallId, event.toolName, args, place.stepId),
      ...parentField(place.parentToolCallId),
      status: "done",
      observation: event.isError ? null : text,
      error: event.isError ? text : null,
      iter_elapsed: round2(event.durationMs / 1000),
    });
  }

  private answerStep(): SseFrame[] {
    if (this.answerStepSent) return [];
    this.answerStepSent = true;
    return [step({ type: "answer", status: "start" })];
  }

  /**
   * The answer's end. When the deltas since the last start are not the answer (a plan's failed
   * synthesis ends with its fallback and no fresh start), the answer is restarted with it whole.
   */
  private answerEnd(event: Of<"answer_end">): SseFrame[] {
    const frames: SseFrame[] = [];
    if (this.answerSoFar !== event.answer) {
      frames.push(answer({ status: "start" }));
      if (event.answer !== "") frames.push(answer({ status: "delta", content: event.answer }));
      this.answerSoFar = event.answer;
    }
    frames.push(answer({ status: "done", ...(event.error !== undefined ? { error: event.error } : {}) }));
    return frames;
  }

  private runEnd(event: Of<"agent_end">): SseFrame[] {
    const frames: SseFrame[] = [];
    if (!this.answerStreamed && event.answer !== "") {
      frames.push(
        ...this.answerStep(),
        answer({ status: "start" }),
        answer({ status: "delta", content: event.answer }),
        answer({ status: "done" }),
      );
    }
    const done: Record<string, unknown> = {
      answer: event.answer,
      iterations: event.iterations,
      elapsed: round2(event.elapsedMs / 1000),
      usage: usageOf(event.usage),
      stop_reason: event.stopReason,
    };
    if (event.errorMessage !== undefined) done.error = event.errorMessage;
    frames.push({ event: "done", data: done });
    return frames;
  }
}

function retrying(event: Of<"model_retry">): Record<string, unknown> {
  return {
    phase: "retrying",
    purpose: event.purpose,
    attempt: event.attempt,
    max_attempts: event.maxAttempts,
    delay_ms: event.delayMs,
    error_kind: event.errorKind,
    error_message: event.errorMessage,
    ...(event.status !== undefined ? { status: event.status } : {}),
  };
}

function step(data: Record<string, unknown>): SseFrame {
  return { event: "step", data };
}

function progress(data: Record<string, unknown>): SseFrame {
  return { event: "step_progress", data };
}

function answer(data: Record<string, unknown>): SseFrame {
  return { event: "answer", data };
}

/** What the model thought before acting: its reasoning, and the text that came with tool calls. */
function reasoningOf(message: AssistantMessage): string {
  const hasCalls = message.content.some((part) => part.type === "toolCall");
  const parts: string[] = [];
  for (const part of message.content) {
    if (part.type === "thinking" && !part.redacted && part.thinking) parts.push(part.thinking);
    if (part.type === "text" && hasCalls && part.text) parts.push(part.text);
  }
  return parts.join("\n");
}

function outcomeText(outcome: ToolOutcome): string {
  let text = "";
  for (const part of outcome.content) if (part.type === "text") text += part.text;
  return text;
}

function usageOf(usage: Usage) {
  const prompt = usage.input + usage.cacheRead + usage.cacheWrite;
  return {
    prompt_tokens: prompt,
    completion_tokens: usage.output,
    total_tokens: usage.totalTokens,
    cost: usage.cost.total,
  };
}

function snakeCase(detail: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(detail))
    out[key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)] = value;
  return out;
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

function parentField(parentToolCallId: string | undefined): { parent_tool_call_id?: string } {
  return parentToolCallId === undefined ? {} : { parent_tool_call_id: parentToolCallId };
}

function stepField(stepId: string | undefined): { step_id?: string } {
  return stepId === undefined ? {} : { step_id: stepId };
}

/** The list a successful todo_write saved. */
function todoFrame(event: Of<"tool_execution_end">): SseFrame[] {
  if (event.toolName !== "todo_write" || event.isError) return [];
  const items = (event.result.details as { items?: unknown } | undefined)?.items;
  return Array.isArray(items) ? [{ event: "todo", data: { items } }] : [];
}
