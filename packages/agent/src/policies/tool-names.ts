// Tools that policies add themselves. They are bookkeeping, not work: reflection, cycle detection
// and the completion checklist do not count them as tool calls, and a host's permission policy can
// let them through unasked (`POLICY_TOOL_NAMES`), since they change nothing outside the run.

export const REQUEST_TOOLS_TOOL = "request_tools";
export const TASK_COMPLETE_TOOL = "task_complete";

/** The names of the tools policies add: tool selection's `request_tools`, autopilot's `task_complete`. */
export const POLICY_TOOL_NAMES: readonly string[] = [REQUEST_TOOLS_TOOL, TASK_COMPLETE_TOOL];

const POLICY_TOOLS: ReadonlySet<string> = new Set(POLICY_TOOL_NAMES);

export function isPolicyTool(name: string): boolean {
  return POLICY_TOOLS.has(name);
}

/** The calls of a batch that did real work. */
export function realCalls<T extends { name: string }>(calls: readonly T[]): T[] {
  return calls.filter((call) => !isPolicyTool(call.name));
}
