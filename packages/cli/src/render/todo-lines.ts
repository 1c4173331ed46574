// The todo list as lines: drawn whole after every successful todo_write, and on resume.
// "☐ pending", "▶ in progress", "☑ done".

import type { TodoItem } from "@tern/tools";
import type { Style } from "./style.js";
import { terminalText } from "./terminal-text.js";

export function todoLines(items: readonly TodoItem[], style: Style): string[] {
  if (items.length === 0) return [style.dim("  todo list: empty")];
  const done = items.filter((item) => item.status === "done").length;
  const lines = [style.dim(`  todo ${done}/${items.length}`)];
  for (const item of items) {
    const text = terminalText(item.content);
    if (item.status === "done") lines.push(`  ${style.green("☑")} ${style.dim(text)}`);
    else if (item.status === "in_progress") lines.push(`  ${style.cyan("▶")} ${text}`);
    else lines.push(`  ☐ ${text}`);
  }
  return lines;
}

/** The list a todo_write result carries, or undefined for other results. */
export function todoItemsOf(toolName: string, isError: boolean, details: unknown): TodoItem[] | undefined {
  if (toolName !== "todo_write" || isError) return undefined;
  const items = (details as { items?: unknown } | undefined)?.items;
  return Array.isArray(items) ? (items as TodoItem[]) : undefined;
}
