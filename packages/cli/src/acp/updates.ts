// tern's agent events and saved messages as ACP `session/update` payloads: text and thinking as
// message and thought chunks, tool calls with ACP's kind, title, locations and status, file changes
// as `diff` content, todo_write and plan-mode steps as the session's plan, model calls as context
// usage. One mapper serves a live turn (agentUpdates) and `session/load`'s replay (historyUpdates),
// so an editor sees a loaded session as it saw it live.
import { resolve } from "node:path";
import type { PlanEntry, SessionUpdate, ToolCallContent, ToolKind } from "@agentclientprotocol/sdk";
import {
  type AgentEvent,
  type AgentMessage,
  type AgentToolResult,
  messageText,
  NestedRuns,
} from "@tern/agent";
import type { Model } from "@tern/ai";
import { describeCall } from "../render/tool-lines.js";

/** ACP's kind for each tool tern knows; MCP and other tools are "other". */
const KINDS: Record<string, ToolKind> = {
  read: "read",
  ls: "read",
  write: "edit",
  edit: "edit",
  glob: "search",
  grep: "search",
  bash: "execute",
  web_fetch: "fetch",
  web_search: "fetch",
  todo_write: "think",
  task: "think",
};

export function toolKind(name: string): ToolKind {
  return KINDS[name] ?? "other";
}

/** The tool call's first update: what it is, where, and with which arguments. */
function toolCallStart(
  toolCallId: string,
  name: string,
  args: Record<string, unknown>,
  root: string,
): SessionUpdate {
  const path = typeof args.path === "string" ? absolute(args.path, root) : undefined;
  return {
    sessionUpdate: "tool_call",
    toolCallId,
    title: describeCall(name, args),
    kind: toolKind(name),
    status: "pending",
    ...(path ? { locations: [{ path }] } : {}),
    rawInput: args,
  };
}

/** The tool call's last update: completed or failed, its output, and a diff for file changes. */
function toolCallEnd(
  toolCallId: string,
  name: string,
  args: Record<string, unknown>,
  result: Pick<AgentToolResult, "content">,
  failed: boolean,
  root: string,
): SessionUpdate {
  const content: ToolCallContent[] = failed ? [] : diffs(name, args, root);
  const text = messageText(result);
  if (text) content.push({ type: "content", content: { type: "text", text } });
  return { sessionUpdate: "tool_call_update", toolCallId, status: failed ? "failed" : "completed", content };
}

/** The `diff` content of a file change, from the call's arguments (one per replacement of an edit). */
function diffs(name: string, args: Record<string, unknown>, root: string): ToolCallContent[] {
  if (typeof args.path !== "string") return [];
  const path = absolute(args.path, root);
  if (name === "write" && typeof args.content === "string")
    return [{ type: "diff", path, oldText: null, newText: args.content }];
  if (name === "edit" && Array.isArray(args.edits))
    return (args.edits as { oldText?: unknown; newText?: unknown }[])
      .filter((edit) => typeof edit.oldText === "string" && typeof edit.newText === "string")
      .map((edit) => ({
        type: "diff",
        path,
        oldText: edit.oldText as string,
        newText: edit.newText as string,
      }));
  return [];
}

/** todo_write's list as the session's plan (tern's "done" is ACP's "completed"). */
function todoPlan(args: Record<string, unknown>): SessionUpdate | undefined {
  if (!Array.isArray(args.todos)) return undefined;
  const entries: PlanEntry[] = (args.todos as { content?: unknown; status?: unknown }[]).map((todo) => ({
    content: String(todo.content ?? ""),
    priority: "medium",
    status: todo.status === "done" ? "completed" : todo.status === "in_progress" ? "in_progress" : "pending",
  }));
  return { sessionUpdate: "plan", entries };
}

/**
 * The updates of one live turn: each event gives none or some. It keeps what later events need
 * (each tool call's arguments, plan mode's steps), so make one per turn.
 */
export function agentUpdates(root: string, model: Model): (event: AgentEvent) => SessionUpdate[] {
  const calls = new Map<string, { name: string; args: Record<string, unknown> }>();
  const steps = new Map<string, PlanEntry>();
  const nesting = new NestedRuns();
  // Copies: an update may be serialized after the next event changed a step.
  const plan = (): SessionUpdate => ({
    sessionUpdate: "plan",
    entries: [...steps.values()].map((step) => ({ ...step })),
  });
  return (event) => {
    // A sub-agent's own tool calls belong to its `task` call, not to the editor's list.
    if (nesting.place(event).parentToolCallId !== undefined) return [];
    switch (event.type) {
      case "message_update": {
        const delta = event.assistantEvent;
        if (delta.type === "text_delta")
          return [{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: delta.delta } }];
        if (delta.type === "thinking_delta")
          return [{ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: delta.delta } }];
        return [];
      }
      case "tool_execution_start": {
        calls.set(event.toolCallId, { name: event.toolName, args: event.args });
        const todos = event.toolName === "todo_write" ? todoPlan(event.args) : undefined;
        return [toolCallStart(event.toolCallId, event.toolName, event.args, root), ...(todos ? [todos] : [])];
      }
      case "tool_execution_end": {
        const call = calls.get(event.toolCallId) ?? { name: event.toolName, args: {} };
        calls.delete(event.toolCallId);
        return [toolCallEnd(event.toolCallId, call.name, call.args, event.result, event.isError, root)];
      }
      case "model_call_end":
        return model.contextWindow > 0
          ? [{ sessionUpdate: "usage_update", used: event.usage.totalTokens, size: model.contextWindow }]
          : [];
      case "plan_start":
        steps.clear();
        for (const step of event.steps)
          steps.set(step.id, { content: step.task, priority: "medium", status: "pending" });
        return [plan()];
      case "plan_step_start":
      case "plan_step_end": {
        const step = steps.get(event.stepId);
        if (!step) return [];
        // ACP's plan has no failed entry: a step that did not finish says so in its text.
        step.status = event.type === "plan_step_start" ? "in_progress" : "completed";
        if (event.type === "plan_step_end" && event.status !== "done") step.content += ` (${event.status})`;
        return [plan()];
      }
      default:
        return [];
    }
  };
}

/** A saved session's messages as the updates `session/load` replays. */
export function historyUpdates(messages: readonly AgentMessage[], root: string): SessionUpdate[] {
  const updates: SessionUpdate[] = [];
  const calls = new Map<string, { name: string; args: Record<string, unknown> }>();
  for (const message of messages) {
    if (!("role" in message)) continue;
    if (message.role === "user") {
      const text = messageText(message);
      if (text) updates.push({ sessionUpdate: "user_message_chunk", content: { type: "text", text } });
    } else if (message.role === "assistant") {
      for (const part of message.content) {
        if (part.type === "text" && part.text)
          updates.push({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: part.text } });
        else if (part.type === "thinking" && part.thinking)
          updates.push({
            sessionUpdate: "agent_thought_chunk",
            content: { type: "text", text: part.thinking },
          });
        else if (part.type === "toolCall") {
          calls.set(part.id, { name: part.name, args: part.arguments });
          updates.push(toolCallStart(part.id, part.name, part.arguments, root));
        }
      }
    } else if (message.role === "toolResult") {
      const call = calls.get(message.toolCallId) ?? { name: message.toolName, args: {} };
      updates.push(toolCallEnd(message.toolCallId, call.name, call.args, message, message.isError, root));
    }
  }
  return updates;
}

/** ACP paths are absolute; tern's tools take them relative to the workspace. */
function absolute(path: string, root: string): string {
  return resolve(root, path);
}
