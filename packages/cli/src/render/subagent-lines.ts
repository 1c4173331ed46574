// Sub-agents, collapsed: their model calls and tool executions (events with `parentToolCallId`)
// are not drawn one by one. While they run, the status line holds one entry per sub-agent with
// its progress ("explorer: turn 2 · 3 tools · read src/a.ts"); when one ends, one line sums it up.
// Deeper sub-agents count toward the top-level sub-agent they run under (`NestedRuns` says which).

import { type AgentEvent, NestedRuns } from "@tern/agent";
import { formatDuration, formatTokens, oneLine, plural } from "./format.js";
import type { Style } from "./style.js";
import { describeCall } from "./tool-lines.js";

interface Running {
  agent: string;
  task: string;
  turns: number;
  tools: number;
  doing: string;
}

export class SubagentLines {
  /** Top-level sub-agents by the id of the `task` call that started them. */
  private readonly running = new Map<string, Running>();
  private readonly nesting = new NestedRuns();

  constructor(
    private readonly style: Style,
    private readonly line: (text: string) => void,
    private readonly status: (text: string | undefined) => void,
  ) {}

  /** True when the event belongs to a sub-agent and was handled here. Feed it every event. */
  handle(event: AgentEvent): boolean {
    const place = this.nesting.place(event);
    if (event.type === "subagent_start") {
      if (place.rootToolCallId === event.parentToolCallId)
        this.running.set(event.parentToolCallId, {
          agent: event.agent,
          task: event.task,
          turns: 0,
          tools: 0,
          doing: "starting",
        });
      this.show();
      return true;
    }
    if (event.type === "subagent_end") {
      if (this.running.delete(event.parentToolCallId)) {
        const { style } = this;
        const mark = event.status === "done" ? style.green("↳") : style.red("↳");
        const summary = [
          `${event.agent} ${event.status}`,
          plural(event.turns, "turn"),
          `${formatTokens(event.usage.totalTokens)} tokens`,
          formatDuration(event.durationMs),
        ].join(" · ");
        this.line(
          `  ${mark} ${style.dim(summary)}${event.error ? style.red(` · ${oneLine(event.error, 100)}`) : ""}`,
        );
      }
      this.show();
      return true;
    }
    if (place.rootToolCallId === undefined) {
      // An aborted run drops its sub-agents' late events: the task call's own end closes them.
      if (event.type === "tool_execution_end" && this.running.delete(event.toolCallId)) this.show();
      if (event.type === "agent_end") this.running.clear();
      return false;
    }
    const entry = this.running.get(place.rootToolCallId);
    if (event.type === "tool_execution_start" && entry) {
      entry.tools++;
      entry.doing = oneLine(describeCall(event.toolName, event.args), 50);
    } else if (event.type === "model_call_start" && entry) {
      if (event.purpose === "turn") entry.turns++;
      entry.doing = "thinking";
    }
    this.show();
    return true;
  }

  private show(): void {
    if (this.running.size === 0) return;
    const parts = [...this.running.values()].map(
      (r) => `${r.agent} "${oneLine(r.task, 30)}": turn ${r.turns} · ${plural(r.tools, "tool")} · ${r.doing}`,
    );
    this.status(parts.join(" | "));
  }
}
