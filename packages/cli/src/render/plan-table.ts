// Plan mode on the terminal: the step table (id, status, task, what it waits for) drawn when a
// round's plan is made and again, with timings and tokens, when the round is analysed; one line
// per step change in between; and a live status line summarising the table ("2/4 done · b, c
// running"). The Surface has no random-access screen, so "live" is the status line plus the
// redrawn table, which works the same on a terminal, in chat and in a pipe.
import type { PlanEvent, PlanStep } from "@tern/agent";
import { formatDuration, formatTokens, oneLine, padEnd } from "./format.js";
import type { Style } from "./style.js";
import { terminalText } from "./terminal-text.js";

/** How a step ended, as its plan_step_end says. */
type StepStatus = Extract<PlanEvent, { type: "plan_step_end" }>["status"];

interface Row {
  step: PlanStep;
  status: StepStatus | "waiting" | "running";
  detail: string;
}

const TASK_CHARS = 60;

/** Model-written text (tasks, errors, reasoning) on one line, without escape sequences. */
function said(text: string, max: number): string {
  return oneLine(terminalText(text), max);
}

export class PlanTable {
  private rows = new Map<string, Row>();
  /** A plan ran in this run: the summary counts steps, not turns. */
  planned = false;

  constructor(
    private readonly style: Style,
    private readonly line: (text: string) => void,
    private readonly status: (text: string | undefined) => void,
  ) {}

  reset(): void {
    this.rows.clear();
    this.planned = false;
  }

  handle(event: PlanEvent): void {
    const { style } = this;
    switch (event.type) {
      case "plan_start":
        this.planned = true;
        this.rows = new Map(event.steps.map((step) => [step.id, { step, status: "waiting", detail: "" }]));
        this.line(
          style.bold(
            `Plan, round ${event.round}: ${event.steps.length} step${event.steps.length === 1 ? "" : "s"}`,
          ),
        );
        this.draw();
        break;
      case "plan_step_start": {
        const row = this.rows.get(event.stepId);
        if (row) row.status = "running";
        this.line(
          `${style.cyan("▶")} step ${terminalText(event.stepId)} ${style.dim(`(${event.model})`)}: ${said(event.task, TASK_CHARS)}`,
        );
        break;
      }
      case "plan_step_end": {
        const row = this.rows.get(event.stepId);
        const detail = `${formatDuration(event.durationMs)} · ${formatTokens(event.usage.totalTokens)} tokens`;
        if (row) {
          row.status = event.status;
          row.detail = event.status === "done" ? detail : (event.error ?? event.status);
        }
        const text = `${this.mark(event.status)} step ${terminalText(event.stepId)} ${event.status}`;
        const why =
          event.status === "done"
            ? style.dim(` · ${detail}`)
            : style.dim(` · ${said(event.error ?? "", 100)}`);
        this.line(`${text}${why}`);
        break;
      }
      case "plan_analysis":
        this.draw();
        this.line(
          (event.achieved ? style.green : style.yellow)(
            `◆ round ${event.round}: ${event.achieved ? "achieved" : "not achieved"} (confidence ${event.confidence.toFixed(2)})`,
          ) + style.dim(event.reasoning ? ` · ${said(event.reasoning, 120)}` : ""),
        );
        if (event.unreadable)
          this.line(
            style.yellow("! the analysis could not be read; the answer is assembled from the steps' results"),
          );
        break;
      case "plan_replan":
        this.line(
          style.magenta(
            `↻ replanning (round ${event.round}): ${event.reason === "user_message" ? `you said “${said(event.message ?? "", 80)}”` : "the goal is not met yet"}`,
          ),
        );
        break;
    }
    this.status(this.summary());
  }

  /** "2/4 done · b, c running", or undefined when no plan is on. */
  summary(): string | undefined {
    if (this.rows.size === 0) return undefined;
    const rows = [...this.rows.values()];
    const done = rows.filter((row) => row.status === "done").length;
    const running = rows.filter((row) => row.status === "running").map((row) => terminalText(row.step.id));
    return `plan: ${done}/${rows.length} done${running.length ? ` · ${running.join(", ")} running` : ""}`;
  }

  private draw(): void {
    const rows = [...this.rows.values()];
    const width = Math.max(4, ...rows.map((row) => row.step.id.length));
    for (const row of rows) {
      const after = row.step.dependencies.length
        ? this.style.dim(` ← ${terminalText(row.step.dependencies.join(", "))}`)
        : "";
      const detail = row.detail ? this.style.dim(` · ${said(row.detail, 80)}`) : "";
      this.line(
        `  ${this.mark(row.status)} ${padEnd(terminalText(row.step.id), width)}  ${padEnd(row.status, 8)} ${said(row.step.task, TASK_CHARS)}${after}${detail}`,
      );
    }
  }

  private mark(status: Row["status"]): string {
    const { style } = this;
    if (status === "done") return style.green("✓");
    if (status === "failed") return style.red("✗");
    if (status === "running") return style.cyan("▸");
    if (status === "skipped" || status === "aborted") return style.yellow("–");
    return style.dim("·");
  }
}
