// The agent's todo list (todo_write) as page data: from a `todo` SSE frame while a run goes, and
// from a todo_write call's arguments in history. Each list replaces the turn's earlier one.

import type { Data } from "./data.js";

export interface TodoEntry {
  id: string;
  content: string;
  status: "pending" | "in_progress" | "done";
}

export interface TodoListItem {
  kind: "todo";
  entries: TodoEntry[];
}

const STATUSES = new Set(["pending", "in_progress", "done"]);

/** The entries of a frame's `items` (or a call's `todos`); malformed entries are left out. */
export function todoEntries(value: unknown): TodoEntry[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((raw: Data) =>
    raw && typeof raw.content === "string" && STATUSES.has(String(raw.status))
      ? [{ id: String(raw.id ?? ""), content: raw.content, status: raw.status as TodoEntry["status"] }]
      : [],
  );
}

/** Puts the list in place of the turn's earlier list, or at the end. */
export function placeTodoList(items: { kind: string }[], entries: TodoEntry[]): void {
  const item: TodoListItem = { kind: "todo", entries };
  const index = items.findIndex((existing) => existing.kind === "todo");
  if (index === -1) items.push(item);
  else items[index] = item;
}
