// Copilot-style session events as a pure mapping of the engine's events (one mapper per stream;
// its state — the model call in progress, the kind of the last injection — comes only from
// persisted events, so mapping a session's log again gives the same persisted events).
//
//   model_call_start/end      -> assistant.turn_start / assistant.usage (ephemeral) + turn_end:
//                                one pair per model call, auxiliary calls included
//   message_update deltas     -> assistant.message_delta / assistant.reasoning_delta (ephemeral)
//   assistant message_end     -> assistant.reasoning (if any) + assistant.message (with toolRequests)
//   user message_end          -> user.message (prompts, steering, follow-ups); policy injections
//                                (reflection, nudges, ...) -> system.message instead
//   tool_execution_*          -> tool.execution_start / partial_result (ephemeral) / complete
//   answer_delta / answer_end -> assistant.message_delta / assistant.message (synthesised answers;
//                                each answer_start opens a new messageId, so after a failed
//                                synthesis the void deltas' message never completes and the final
//                                assistant.message carries the fallback answer)
//   model_retry               -> session.warning {warningType:"model_retry"}: Copilot has no
//                                retry event; a warning is what its timelines show for a hiccup
//                                that does not end the turn (session.error would read as fatal)
//   compaction_start/end      -> session.compaction_start / session.compaction_complete
//   task_complete             -> session.task_complete
//   agent_end                 -> session.error (failed run) / abort (aborted run)
//   error                     -> session.warning;  phase -> assistant.intent (ephemeral)
//   subagent_start / _end     -> subagent.started / subagent.completed | subagent.failed, with the
//                                `task` call's id as toolCallId; the sub-agent's tool events carry
//                                it as parentToolCallId, its model calls only as assistant.usage
//                                (a turn_start of theirs would read as the parent's turn)
//   todo_write results        -> session.info {infoType:"todo_list", todos} after the tool event
//   server events             -> session.start / session.resume / session.idle (ephemeral) /
//                                session.error (run_failed) /
//                                permission.requested / permission.completed /
//                                external_tool.requested / external_tool.completed

import {
  type AgentEvent,
  type InjectKind,
  type NestedPlace,
  NestedRuns,
  type ToolOutcome,
} from "@tern/agent";
import type { AssistantMessage, UserMessage } from "@tern/ai";
import type { ServerEvent, SessionServerEvent } from "../types.js";
import { SERVER_VERSION } from "../version.js";

/** An event before its envelope (id, timestamp, parentId). */
export interface CopilotEventBody {
  type: string;
  data: Record<string, unknown>;
  ephemeral?: true;
}

type Of<T extends AgentEvent["type"]> = Extract<AgentEvent, { type: T }>;
type ServerOf<T extends SessionServerEvent["type"]> = Extract<SessionServerEvent, { type: T }>;

/** Injections that carry the user's own words. */
const FROM_USER: ReadonlySet<InjectKind> = new Set(["steering", "follow_up", "interrupt"]);

export class CopilotMapper {
  private callId: string | undefined;
  private answerId: string | undefined;
  private injected: InjectKind | undefined;
  private answers = 0;
  /** In a plan run the answer arrives as answer_* events; the closing assistant message repeats it. */
  private planRun = false;
  /** Where each event sits: a plan step's tool calls name the step's sub-agent. */
  private readonly nesting = new NestedRuns();

  constructor(private readonly sessionId: string) {}

  map(event: ServerEvent): CopilotEventBody[] {
    const place = this.nesting.place(event);
    switch (event.type) {
      case "model_call_start":
        if (place.parentToolCallId !== undefined) return [];
        this.callId = event.callId;
        return [body("assistant.turn_start", { turnId: event.callId, model: event.model })];
      case "model_call_end": {
        const usage = ephemeral("assistant.usage", {
          model: event.model,
          apiCallId: event.callId,
          inputTokens: event.usage.input,
          outputTokens: event.usage.output,
          cacheReadTokens: event.usage.cacheRead,
          cacheWriteTokens: event.usage.cacheWrite,
          cost: event.usage.cost.total,
          duration: event.durationMs,
          ...(place.parentToolCallId !== undefined ? { parentToolCallId: place.parentToolCallId } : {}),
        });
        if (place.parentToolCallId !== undefined) return [usage];
        return [usage, body("assistant.turn_end", { turnId: event.callId, model: event.model })];
      }
      case "subagent_start":
        return [
          body("subagent.started", {
            toolCallId: event.parentToolCallId,
            agentName: event.agent,
            agentDisplayName: event.agent,
            agentDescription: event.task,
            model: event.model,
          }),
        ];
      case "subagent_end": {
        const agent = {
          toolCallId: event.parentToolCallId,
          agentName: event.agent,
          agentDisplayName: event.agent,
        };
        if (event.status === "done")
          return [
            body("subagent.completed", {
              ...agent,
              durationMs: event.durationMs,
              totalTokens: event.usage.totalTokens,
            }),
          ];
        return [
          body("subagent.failed", {
            ...agent,
            durationMs: event.durationMs,
            error: event.error ?? event.status,
          }),
        ];
      }
      case "message_update":
        return this.delta(event);
      case "message_end":
        return this.messageEnd(event);
      case "inject":
        this.injected = event.kind;
        if (FROM_USER.has(event.kind)) return [];
        return [
          body("system.message", { role: "system", name: `tern.${event.kind}`, content: event.content }),
        ];
      case "tool_execution_start":
        return [
          body("tool.execution_start", {
            toolCallId: event.toolCallId,
            toolName: event.toolName,
            arguments: event.args,
            ...this.turn(),
            ...parent(place),
          }),
        ];
      case "tool_execution_update":
        return [
          ephemeral("tool.execution_partial_result", {
            toolCallId: event.toolCallId,
            partialOutput: outcomeText(event.partialResult),
          }),
        ];
      case "tool_execution_end":
        return [this.toolEnd(event, place), ...todoInfo(event)];
      case "answer_start":
        this.answerId = `${this.callId ?? this.sessionId}-answer-${++this.answers}`;
        return [];
      case "answer_delta":
        return [
          ephemeral("assistant.message_delta", {
            messageId: this.answerMessageId(),
            deltaContent: event.delta,
          }),
        ];
      case "answer_end":
        return [
          body("assistant.message", {
            messageId: this.answerMessageId(),
            content: event.answer,
            toolRequests: [],
          }),
        ];
      case "compaction_start":
        return [body("session.compaction_start", { conversationTokens: event.tokensBefore })];
      case "compaction_end":
        return [this.compactionEnd(event)];
      case "task_complete":
        return [body("session.task_complete", { summary: event.summary, success: true })];
      case "phase":
        return [ephemeral("assistant.intent", { intent: event.phase })];
      case "plan_start":
        this.planRun = true;
        return [
          body("session.plan_changed", { operation: event.round === 1 ? "create" : "update" }),
          body("session.info", {
            infoType: "plan",
            message: `Plan (round ${event.round}): ${event.steps.map((s) => `${s.id}${s.dependencies.length ? ` after ${s.dependencies.join(", ")}` : ""}`).join("; ")}`,
          }),
        ];
      case "plan_step_start":
        return [
          body("subagent.started", {
            ...stepAgent(event.round, event.stepId),
            agentDescription: event.task,
            model: event.model,
          }),
        ];
      case "plan_step_end":
        return [this.stepEnd(event)];
      case "plan_analysis":
        return [
          body("session.info", {
            infoType: "plan_analysis",
            message: `Round ${event.round}: ${event.achieved ? "achieved" : "not achieved"} (confidence ${event.confidence}). ${event.reasoning}`,
          }),
        ];
      case "plan_replan":
        return [
          body("session.info", {
            infoType: "plan_replan",
            message: `Replanning (round ${event.round}): ${event.reason === "user_message" ? `the user said "${event.message ?? ""}"` : "the goal was not met"}`,
          }),
        ];
      case "error":
        return [body("session.warning", { warningType: event.source, message: event.message })];
      case "model_retry":
        return [body("session.warning", { warningType: "model_retry", message: retryMessage(event) })];
      case "agent_end":
        return this.runEnd(event);
      default:
        return this.serverEvent(event);
    }
  }

  private delta(event: Of<"message_update">): CopilotEventBody[] {
    const update = event.assistantEvent;
    if (update.type === "text_delta")
      return [
        ephemeral("assistant.message_delta", { messageId: this.messageId(), deltaContent: update.delta }),
      ];
    if (update.type === "thinking_delta")
      return [
        ephemeral("assistant.reasoning_delta", {
          reasoningId: this.reasoningId(),
          deltaContent: update.delta,
        }),
      ];
    return [];
  }

  private messageEnd(event: Of<"message_end">): CopilotEventBody[] {
    const role = (event.message as { role?: unknown }).role;
    if (role === "assistant")
      return this.planRun ? [] : this.assistantMessage(event.message as AssistantMessage);
    if (role !== "user") return [];
    const kind = this.injected;
    this.injected = undefined;
    if (kind !== undefined && !FROM_USER.has(kind)) return [];
    const delivery = kind === undefined ? "idle" : kind === "follow_up" ? "queued" : "steering";
    return [body("user.message", { content: userText(event.message as UserMessage), delivery })];
  }

  private assistantMessage(message: AssistantMessage): CopilotEventBody[] {
    const out: CopilotEventBody[] = [];
    let text = "";
    let thinking = "";
    const toolRequests: Record<string, unknown>[] = [];
    for (const part of message.content) {
      if (part.type === "text") text += part.text;
      else if (part.type === "thinking" && !part.redacted) thinking += part.thinking;
      else if (part.type === "toolCall")
        toolRequests.push({
          toolCallId: part.id,
          name: part.name,
          arguments: part.arguments,
          type: "function",
        });
    }
    if (thinking !== "")
      out.push(body("assistant.reasoning", { reasoningId: this.reasoningId(), content: thinking }));
    out.push(
      body("assistant.message", {
        messageId: this.messageId(),
        content: text,
        toolRequests,
        model: message.model,
        outputTokens: message.usage.output,
        ...this.turn(),
      }),
    );
    return out;
  }

  private stepEnd(event: Of<"plan_step_end">): CopilotEventBody {
    const agent = stepAgent(event.round, event.stepId);
    if (event.status === "done") {
      return body("subagent.completed", {
        ...agent,
        durationMs: event.durationMs,
        totalTokens: event.usage.totalTokens,
      });
    }
    return body("subagent.failed", {
      ...agent,
      durationMs: event.durationMs,
      error: event.error ?? event.status,
    });
  }

  private toolEnd(event: Of<"tool_execution_end">, place: NestedPlace): CopilotEventBody {
    const text = outcomeText(event.result);
    const data: Record<string, unknown> = {
      toolCallId: event.toolCallId,
      success: !event.isError,
      result: { content: text },
      ...this.turn(),
      ...parent(place),
    };
    if (event.isError) data.error = { message: text };
    return body("tool.execution_complete", data);
  }

  private compactionEnd(event: Of<"compaction_end">): CopilotEventBody {
    const data: Record<string, unknown> = {
      success: event.errorMessage === undefined,
      preCompactionTokens: event.tokensBefore,
      postCompactionTokens: event.tokensAfter,
      preCompactionMessagesLength: event.messagesBefore,
      messagesRemoved: Math.max(0, event.messagesBefore - event.messagesKept),
    };
    if (event.errorMessage !== undefined) data.error = event.errorMessage;
    return body("session.compaction_complete", data);
  }

  private runEnd(event: Of<"agent_end">): CopilotEventBody[] {
    this.callId = undefined;
    this.planRun = false;
    if (event.stopReason === "aborted") return [body("abort", { reason: "user_initiated" })];
    if (event.stopReason !== "error") return [];
    return [
      body("session.error", { errorType: "model_call", message: event.errorMessage ?? "the run failed" }),
    ];
  }

  private serverEvent(event: ServerEvent): CopilotEventBody[] {
    switch (event.type) {
      case "session_start":
        return [
          body("session.start", {
            sessionId: event.sessionId,
            version: 1,
            producer: "tern",
            copilotVersion: SERVER_VERSION,
            startTime: event.startTime,
            selectedModel: event.model,
            context: { cwd: event.cwd },
          }),
        ];
      case "session_resume":
        return [
          body("session.resume", {
            resumeTime: event.resumeTime,
            eventCount: event.eventCount,
            selectedModel: event.model,
            context: { cwd: event.cwd },
          }),
        ];
      case "idle":
        return [ephemeral("session.idle", { aborted: event.aborted })];
      case "run_failed":
        return [body("session.error", { errorType: "runtime", message: event.message })];
      case "permission_request":
        return [
          body("permission.requested", {
            requestId: event.requestId,
            permissionRequest: permissionRequest(event),
          }),
        ];
      case "permission_result":
        return [
          body("permission.completed", {
            requestId: event.requestId,
            toolCallId: event.toolCallId,
            result: event.allow
              ? { kind: "approved" }
              : { kind: "denied-interactively-by-user", ...(event.reason ? { feedback: event.reason } : {}) },
          }),
        ];
      case "external_tool_request":
        return [
          body("external_tool.requested", {
            requestId: event.requestId,
            sessionId: this.sessionId,
            toolCallId: event.toolCallId,
            toolName: event.toolName,
            arguments: event.args,
          }),
        ];
      case "external_tool_result":
        return [body("external_tool.completed", { requestId: event.requestId })];
      default:
        return [];
    }
  }

  private turn(): { turnId?: string } {
    return this.callId === undefined ? {} : { turnId: this.callId };
  }

  private messageId(): string {
    return `${this.callId ?? this.sessionId}-message`;
  }

  private reasoningId(): string {
    return `${this.callId ?? this.sessionId}-reasoning`;
  }

  private answerMessageId(): string {
    return this.answerId ?? `${this.sessionId}-answer`;
  }
}

/** Copilot's request shapes by kind (the fields its handlers read). */
function permissionRequest(event: ServerOf<"permission_request">): Record<string, unknown> {
  const base = { toolCallId: event.toolCallId };
  const path = typeof event.args.path === "string" ? event.args.path : "";
  switch (event.kind) {
    case "shell": {
      const command = typeof event.args.command === "string" ? event.args.command : event.summary;
      return {
        ...base,
        kind: "shell",
        fullCommandText: command,
        intention: event.summary,
        commands: [{ identifier: command, readOnly: false }],
        possiblePaths: [],
        possibleUrls: [],
        hasWriteFileRedirection: false,
        canOfferSessionApproval: (event.suggestedRules?.length ?? 0) > 0,
      };
    }
    case "write":
      return {
        ...base,
        kind: "write",
        fileName: path,
        intention: event.summary,
        diff: "",
        canOfferSessionApproval: (event.suggestedRules?.length ?? 0) > 0,
      };
    case "read":
      return { ...base, kind: "read", path, intention: event.summary };
    default:
      return {
        ...base,
        kind: "custom-tool",
        toolName: event.toolName,
        toolDescription: event.toolDescription,
        args: event.args,
      };
  }
}

/**
 * A plan step as a Copilot sub-agent: SDK clients already show sub-agents starting, finishing and
 * failing. Steps are not spawned by a tool call, so `toolCallId` is the step's own id.
 */
function stepAgent(round: number, stepId: string) {
  return {
    toolCallId: `plan-${round}-${stepId}`,
    agentName: `step:${stepId}`,
    agentDisplayName: `Step ${stepId}`,
  };
}

/** A tool call's sub-agent: the `task` call's, or a plan step's (`parentToolCallId`). */
function parent(place: NestedPlace): { parentToolCallId?: string } {
  if (place.parentToolCallId !== undefined) return { parentToolCallId: place.parentToolCallId };
  if (place.stepId === undefined || place.round === undefined) return {};
  return { parentToolCallId: stepAgent(place.round, place.stepId).toolCallId };
}

/** "Model call failed (429 rate_limit: slow down); retrying in 1.5 s, attempt 2 of 4". */
function retryMessage(event: Of<"model_retry">): string {
  const cause = `${event.status !== undefined ? `${event.status} ` : ""}${event.errorKind}: ${event.errorMessage}`;
  const wait = `${Math.round(event.delayMs / 100) / 10} s`;
  return `Model call failed (${cause}); retrying in ${wait}, attempt ${event.attempt} of ${event.maxAttempts}`;
}

/** A todo_write result as the list it saved, for clients that show it. */
function todoInfo(event: Of<"tool_execution_end">): CopilotEventBody[] {
  if (event.toolName !== "todo_write" || event.isError) return [];
  const items = (event.result.details as { items?: { content: string; status: string }[] } | undefined)
    ?.items;
  if (!Array.isArray(items)) return [];
  const done = items.filter((item) => item.status === "done").length;
  return [
    body("session.info", {
      infoType: "todo_list",
      message: `Todo list: ${done} of ${items.length} done`,
      todos: items,
    }),
  ];
}

function body(type: string, data: Record<string, unknown>): CopilotEventBody {
  return { type, data };
}

function ephemeral(type: string, data: Record<string, unknown>): CopilotEventBody {
  return { type, data, ephemeral: true };
}

function userText(message: UserMessage): string {
  if (typeof message.content === "string") return message.content;
  return message.content.map((part) => (part.type === "text" ? part.text : "")).join("");
}

function outcomeText(outcome: ToolOutcome): string {
  let text = "";
  for (const part of outcome.content) if (part.type === "text") text += part.text;
  return text;
}
