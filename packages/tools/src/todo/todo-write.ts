// The todo_write tool: the model's plan for multi-step work as a list it rewrites whole on every
// call. The tool keeps no state: the list is the last successful call's arguments, so a session's
// transcript holds it and `latestTodos` recovers it on resume. UIs read `details.items`.

import type { AgentMessage } from "@tern/agent";
import { z } from "zod";
import { toolError } from "../tools/result.js";
import type { BuiltinTool } from "../types.js";

export const TODO_STATUSES = ["pending", "in_progress", "done"] as const;
export type TodoStatus = (typeof TODO_STATUSES)[number];

export interface TodoItem {
  id: string;
  content: string;
  status: TodoStatus;
}

export interface TodoDetails {
  items: TodoItem[];
}

/** Items one list may hold: a plan, not a backlog. */
export const MAX_TODO_ITEMS = 50;
const MAX_TODO_CONTENT = 500;

const item = z.object({
  id: z.string().trim().min(1, "an item's id is empty"),
  content: z.string().trim().min(1, "an item's content is empty").max(MAX_TODO_CONTENT),
  status: z.enum(TODO_STATUSES),
});

const parameters = z.object({
  todos: z
    .array(item)
    .max(MAX_TODO_ITEMS)
    .describe("The whole list, every item, in order. Items left out are dropped."),
});

/** Rules zod cannot say per item: unique ids, at most one item in progress. Undefined when fine. */
export function todoListProblem(items: readonly TodoItem[]): string | undefined {
  const seen = new Set<string>();
  for (const { id } of items) {
    if (seen.has(id)) return `the id "${id}" is used twice; give every item its own id`;
    seen.add(id);
  }
  const active = items.filter((entry) => entry.status === "in_progress");
  if (active.length > 1)
    return `${active.length} items are in_progress (${active.map((entry) => entry.id).join(", ")}); at most one may be`;
  return undefined;
}

export function todoWriteTool(): BuiltinTool<z.infer<typeof parameters>, TodoDetails> {
  return {
    name: "todo_write",
    label: "Update todo list",
    kind: "read",
    description:
      "Keep a todo list for multi-step work: send the WHOLE list every call (items you leave out are dropped). " +
      "Each item: id, content, status pending | in_progress | done. Mark an item in_progress before starting it " +
      "(at most one at a time) and done as soon as it is finished. Skip it for one-step tasks.",
    parameters,
    execute({ todos }) {
      const problem = todoListProblem(todos);
      if (problem) return toolError(`The todo list was not saved: ${problem}.`);
      const done = todos.filter((entry) => entry.status === "done").length;
      const active = todos.find((entry) => entry.status === "in_progress");
      const summary = `Todo list saved: ${todos.length} item${todos.length === 1 ? "" : "s"}, ${done} done${active ? `, in progress: ${active.content}` : ""}.`;
      return { content: summary, details: { items: todos } };
    },
  };
}

/**
 * The list as the last successful todo_write call in `messages` left it, or undefined when there
 * is none (so a resumed session shows the list it had).
 */
export function latestTodos(messages: readonly AgentMessage[]): TodoItem[] | undefined {
  const failed = new Set<string>();
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i] as {
      role?: string;
      toolCallId?: string;
      toolName?: string;
      isError?: boolean;
    };
    if (message.role === "toolResult" && message.toolName === "todo_write" && message.isError)
      failed.add(String(message.toolCallId));
    if (message.role !== "assistant") continue;
    const parts = (
      messages[i] as { content: { type: string; id?: string; name?: string; arguments?: unknown }[] }
    ).content;
    for (let p = parts.length - 1; p >= 0; p--) {
      const part = parts[p]!;
      if (part.type !== "toolCall" || part.name !== "todo_write" || failed.has(String(part.id))) continue;
      const parsed = parameters.safeParse(part.arguments);
      if (parsed.success && todoListProblem(parsed.data.todos) === undefined) return parsed.data.todos;
    }
  }
  return undefined;
}
