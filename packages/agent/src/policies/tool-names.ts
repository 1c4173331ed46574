// Tools that policies add themselves. They are bookkeeping, not work: reflection, cycle detection
// and the completion checklist do not count them as tool calls.

export const REQUEST_TOOLS_TOOL = "request_tools";
export const TASK_COMPLETE_TOOL = "task_complete";

const POLICY_TOOLS: ReadonlySet<string> = new Set([REQUEST_TOOLS_TOOL, TASK_COMPLETE_TOOL]);

export function isPolicyTool(name: string): boolean {
  return POLICY_TOOLS.has(name);
}

/** The calls of a batch that did real work. */
export function realCalls<T extends { name: string }>(calls: readonly T[]): T[] {
  return calls.filter((call) => !isPolicyTool(call.name));
}
