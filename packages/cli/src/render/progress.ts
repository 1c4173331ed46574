// Turns the agent's canonical events into what a person reads: streamed answer text, one line per
// turn (tokens, cost, time), tool calls as compact lines, retries, injections, compactions, and a
// summary. On a terminal the model's text is cleaned of escape sequences first (terminal-text.ts).
import type { AgentEvent, AgentRunResult } from "@tern/agent";
import type { AssistantMessage, ErrorKind, RetryNotice, ToolCall } from "@tern/ai";
import {
  type CostTally,
  formatCost,
  formatDuration,
  formatTally,
  formatTokens,
  oneLine,
  plural,
} from "./format.js";
import { MarkdownStream } from "./markdown.js";
import { PlanTable } from "./plan-table.js";
import type { Style } from "./style.js";
import { SubagentLines } from "./subagent-lines.js";
import type { Surface } from "./surface.js";
import { TerminalTextFilter, terminalText } from "./terminal-text.js";
import { todoItemsOf, todoLines } from "./todo-lines.js";
import { describeCall, describeOutcome, editDiff, outcomeMark } from "./tool-lines.js";

export interface RendererOptions {
  style: Style;
  /**
   * Stream assistant text as it arrives (a person is watching). Otherwise only the final answer is
   * written, once the run ends: text of messages that go on to call tools is narration, shown as a
   * progress line, so a pipe gets the answer alone.
   */
  liveText: boolean;
  /**
   * The text goes to a terminal: escape sequences and control characters the model wrote are
   * removed (terminal-text.ts), so a reply cannot retitle the window or clear the screen.
   * Default: `liveText`. A pipe gets the text as the model sent it.
   */
  terminal?: boolean;
  /** Most diff lines shown under an edit. Default 12; 0 hides diffs. */
  diffLines?: number;
  /** Draws streamed answers as Markdown (a terminal); without it the text is shown as written. */
  markdown?: (markdown: string) => string;
  /**
   * Whether tern knows a price for a provider's model (catalog or config.json). A call of a model
   * without one is summed as "unknown", as `tern usage` does; without this option a call is priced
   * when it cost something.
   */
  hasPrice?: (provider: string, model: string) => boolean;
}

const MAX_DIFF_LINES = 12;

export class ProgressRenderer {
  private streamedText = false;
  private textOpen = false;
  private endsWithNewline = true;
  private pendingAnswer: string | undefined;
  private synthesized = false;
  /** The run's answer reached the surface (a final message, or a synthesis). */
  private answerShown = false;
  private synthesisDeltas = false;
  private lastStartedCall: string | undefined;
  private readonly calls = new Map<string, { name: string; args: Record<string, unknown> }>();
  private toolCount = 0;
  /** This run's model calls, for the summary's cost. */
  private tally: CostTally = { cost: 0, calls: 0, unpricedCalls: 0 };
  private readonly cleaner: TerminalTextFilter | undefined;
  private readonly markdown: MarkdownStream | undefined;
  private readonly plan: PlanTable;
  private readonly subagents: SubagentLines;

  constructor(
    private readonly surface: Surface,
    private readonly options: RendererOptions,
  ) {
    if (options.terminal ?? options.liveText) this.cleaner = new TerminalTextFilter();
    if (options.markdown) this.markdown = new MarkdownStream(options.markdown);
    this.plan = new PlanTable(
      options.style,
      (text) => this.line(text),
      (text) => surface.status(text),
    );
    this.subagents = new SubagentLines(
      options.style,
      (text) => this.line(text),
      (text) => surface.status(text),
    );
  }

  /** Tool calls run so far (all runs). */
  get toolCalls(): number {
    return this.toolCount;
  }

  readonly handle = (event: AgentEvent): void => {
    const { style } = this.options;
    // Every call counts in the run's cost, a subagent's too (they are in the run's totals).
    if (event.type === "model_call_end") this.countCost(event.provider, event.model, event.usage.cost.total);
    if (this.subagents.handle(event)) return;
    switch (event.type) {
      case "agent_start":
        this.tally = { cost: 0, calls: 0, unpricedCalls: 0 };
        this.pendingAnswer = undefined;
        this.synthesized = false;
        this.answerShown = false;
        this.plan.reset();
        this.surface.status("thinking");
        return;
      case "model_call_start":
        // A plan's steps call models in parallel: the plan's summary says more than one of them.
        this.surface.status(
          event.purpose === "turn"
            ? "thinking"
            : event.purpose.startsWith("step:")
              ? (this.plan.summary() ?? event.purpose)
              : event.purpose,
        );
        return;
      case "model_retry":
        this.line(style.yellow(`↻ ${retryLine(event)}`));
        this.surface.status(`waiting to retry (attempt ${event.attempt}/${event.maxAttempts})`);
        return;
      case "message_update":
        this.onStreamEvent(event.assistantEvent);
        return;
      case "message_end":
        if ((event.message as { role?: string }).role === "assistant")
          this.onAssistantEnd(event.message as AssistantMessage);
        return;
      case "model_call_end": {
        // A failed call is reported once, by the run's end.
        if (event.stopReason === "error" || event.stopReason === "aborted") return;
        const parts = [
          event.purpose === "turn" ? `${event.model}` : `${event.purpose} call · ${event.model}`,
          `${formatTokens(event.usage.totalTokens)} tokens`,
        ];
        if (event.usage.cost.total > 0) parts.push(formatCost(event.usage.cost.total));
        parts.push(formatDuration(event.durationMs));
        this.endText();
        this.line(style.dim(`· ${parts.join(" · ")}`));
        return;
      }
      case "tool_execution_start":
        this.toolCount++;
        this.calls.set(event.toolCallId, { name: event.toolName, args: event.args });
        // A plan's steps run in parallel: say which step each call belongs to.
        this.line(
          `${style.cyan("▸")} ${event.stepId !== undefined ? style.dim(`[${terminalText(event.stepId)}] `) : ""}${describeCall(event.toolName, event.args)}`,
        );
        this.lastStartedCall = event.toolCallId;
        this.surface.status(`running ${event.toolName}`);
        return;
      case "tool_execution_update": {
        const text = event.partialResult.content
          .map((part) => (part.type === "text" ? part.text : ""))
          .join("");
        const last = text.trimEnd().split("\n").at(-1);
        this.surface.status(last ? `${event.toolName}: ${oneLine(last, 60)}` : `running ${event.toolName}`);
        return;
      }
      case "tool_execution_end":
        this.onToolEnd(event);
        return;
      case "turn_end":
        this.surface.status("thinking");
        return;
      case "inject":
        // A final answer the runtime sent back (a checklist, a nudge): show it before the reason.
        if (this.pendingAnswer !== undefined) {
          this.line(style.dim(`“${oneLine(this.pendingAnswer, 160)}”`));
          this.pendingAnswer = undefined;
        }
        this.answerShown = false;
        this.line(style.magenta(`↪ ${event.kind.replace("_", "-")}: ${oneLine(event.content, 120)}`));
        return;
      case "phase":
        this.line(style.dim(`· ${event.phase.replace(/_/g, " ")}${phaseDetail(event.detail)}`));
        return;
      case "compaction_start":
        this.surface.status("compacting the context");
        return;
      case "compaction_end":
        // Cleared before the line is drawn: in chat, /compact has nothing after it to replace the
        // status, and a run's next model call sets its own.
        this.surface.status(undefined);
        if (event.errorMessage)
          this.line(
            style.yellow(`⟳ compaction failed (${event.reason}): ${oneLine(event.errorMessage, 120)}`),
          );
        else if (event.messagesKept >= event.messagesBefore && event.tokensAfter >= event.tokensBefore)
          this.line(style.dim(`⟳ nothing to compact (${formatTokens(event.tokensBefore)} tokens)`));
        else
          this.line(
            style.blue(
              `⟳ compacted (${event.reason}): ${formatTokens(event.tokensBefore)} → ${formatTokens(event.tokensAfter)} tokens, kept ${event.messagesKept} of ${plural(event.messagesBefore, "message")}`,
            ),
          );
        return;
      case "answer_start":
        // A second answer_start voids what streamed (a synthesis that failed midway).
        this.synthesized = true;
        this.answerShown = true;
        this.synthesisDeltas = false;
        this.pendingAnswer = undefined;
        this.endText();
        this.surface.status(undefined);
        return;
      case "answer_delta":
        // Without a person watching, the answer is written whole at answer_end: a pipe never gets
        // the start of a synthesis that failed.
        if (!this.options.liveText) return;
        this.synthesisDeltas = true;
        this.writeText(event.delta);
        return;
      case "answer_end":
        if (!this.synthesisDeltas) this.writeText(event.answer);
        this.endText();
        return;
      case "plan_start":
      case "plan_step_start":
      case "plan_step_end":
      case "plan_analysis":
      case "plan_replan":
        this.plan.handle(event);
        return;
      case "task_complete":
        this.line(style.green(`✔ task complete: ${oneLine(event.summary, 140)}`));
        return;
      case "error":
        this.line(style.yellow(`! ${event.source} error: ${oneLine(event.message, 200)}`));
        return;
      case "agent_end":
        this.onEnd(event);
        return;
    }
  };

  private onStreamEvent(event: Extract<AgentEvent, { type: "message_update" }>["assistantEvent"]): void {
    if (event.type === "text_delta") {
      if (this.options.liveText) this.writeText(event.delta);
      return;
    }
    if (event.type === "thinking_delta") this.surface.status("thinking");
    if (event.type === "toolcall_start") {
      const call = event.partial.content[event.contentIndex] as ToolCall | undefined;
      if (call?.name) this.surface.status(`preparing ${call.name}`);
    }
  }

  private onAssistantEnd(message: AssistantMessage): void {
    const text = message.content
      .filter((part) => part.type === "text")
      .map((part) => part.text)
      .join("\n")
      .trim();
    const callsTools = message.content.some((part) => part.type === "toolCall");
    const final =
      !callsTools && text !== "" && (message.stopReason === "stop" || message.stopReason === "length");
    if (final) this.answerShown = true;
    if (this.options.liveText) {
      this.endText();
    } else if (text !== "") {
      if (callsTools) this.line(this.options.style.dim(`“${oneLine(text, 160)}”`));
      else if (!this.synthesized) this.pendingAnswer = text;
    }
    if (message.stopReason === "length")
      this.line(this.options.style.yellow("! the answer was cut at the model's output limit"));
  }

  private onToolEnd(event: Extract<AgentEvent, { type: "tool_execution_end" }>): void {
    const { style } = this.options;
    const call = this.calls.get(event.toolCallId);
    this.calls.delete(event.toolCallId);
    const outcome = describeOutcome(event.toolName, event.result);
    const mark = outcomeMark(outcome.status, style);
    const label = outcome.status === "denied" ? `denied: ${outcome.text}` : outcome.text;
    const right = this.lastStartedCall === event.toolCallId;
    // Every result names its tool: right under its own call line the name is enough, after other
    // calls' lines (a parallel batch) the whole call is repeated.
    const head =
      right || !call ? `${terminalText(event.toolName)} · ` : `${describeCall(call.name, call.args)} · `;
    const colored =
      outcome.status === "denied"
        ? style.yellow(label)
        : outcome.status === "error"
          ? style.red(label)
          : style.dim(label);
    this.line(`  ${mark} ${head}${colored}${style.dim(` (${formatDuration(event.durationMs)})`)}`);
    const diff = editDiff(event.result);
    const max = this.options.diffLines ?? MAX_DIFF_LINES;
    if (diff && !event.isError && max > 0) this.showDiff(diff, max);
    const todos = todoItemsOf(event.toolName, event.isError, event.result.details);
    if (todos) for (const text of todoLines(todos, style)) this.line(text);
  }

  /** A line of the command's own (an interruption notice), between the run's lines. */
  note(text: string): void {
    this.line(text);
    this.lastStartedCall = undefined;
  }

  private showDiff(diff: string, max: number): void {
    const { style } = this.options;
    const lines = diff.split("\n").filter((line) => /^[+-](?![+-]{2})|^@@/.test(line));
    for (const line of lines.slice(0, max)) {
      const colored = line.startsWith("+")
        ? style.green(line)
        : line.startsWith("-")
          ? style.red(line)
          : style.dim(line);
      this.line(`    ${colored}`);
    }
    if (lines.length > max) this.line(style.dim(`    … ${lines.length - max} more diff lines`));
  }

  private onEnd(event: AgentRunResult): void {
    const { style } = this.options;
    this.surface.status(undefined);
    if (this.pendingAnswer !== undefined) {
      this.writeText(this.pendingAnswer);
      this.pendingAnswer = undefined;
    } else if (
      !this.answerShown &&
      event.answer.trim() !== "" &&
      event.stopReason !== "error" &&
      event.stopReason !== "aborted"
    ) {
      // An answer no message carried: the iteration limit's summary, autopilot's task_complete summary.
      this.endText();
      this.writeText(event.answer);
    }
    this.endText();
    const parts = [
      plural(event.iterations, this.plan.planned ? "step" : "turn"),
      `${formatTokens(event.usage.totalTokens)} tokens`,
      this.tally.calls > 0 ? formatTally(this.tally) : formatCost(event.usage.cost.total),
      formatDuration(event.elapsedMs),
    ];
    const summary = parts.join(" · ");
    const reason = event.stopReason;
    if (reason === "stop" && event.answer.trim() === "") this.line(style.red(`✗ empty reply · ${summary}`));
    else if (reason === "stop" || reason === "terminated") this.line(style.green(`✔ done · ${summary}`));
    else if (reason === "aborted") this.line(style.yellow(`■ interrupted · ${summary}`));
    else if (reason === "error") this.line(style.red(`✗ failed · ${summary}`));
    else this.line(style.yellow(`■ stopped (${reason.replace(/_/g, " ")}) · ${summary}`));
  }

  private countCost(provider: string, model: string, cost: number): void {
    this.tally.calls++;
    if (cost > 0 || this.options.hasPrice?.(provider, model) === true) this.tally.cost += cost;
    else this.tally.unpricedCalls++;
  }

  private writeText(chunk: string): void {
    const clean = this.cleaner ? this.cleaner.push(chunk) : chunk;
    this.emitText(this.markdown ? this.markdown.push(clean) : clean);
  }

  private emitText(chunk: string): void {
    if (chunk === "") return;
    if (!this.textOpen) {
      this.surface.status(undefined);
      // Leading blank lines of a streamed answer only push it down.
      chunk = chunk.replace(/^\n+/, "");
      if (chunk === "") return;
    }
    this.surface.text(chunk);
    this.textOpen = true;
    this.streamedText = true;
    this.endsWithNewline = chunk.endsWith("\n");
  }

  /** Closes the streamed text with a newline, once. */
  private endText(): void {
    if (this.cleaner) {
      const rest = this.cleaner.flush();
      this.emitText(this.markdown ? this.markdown.push(rest) : rest);
    }
    if (this.markdown) this.emitText(this.markdown.flush());
    if (!this.textOpen) return;
    if (!this.endsWithNewline) this.surface.text("\n");
    this.textOpen = false;
    this.endsWithNewline = true;
  }

  private line(text: string): void {
    this.endText();
    this.surface.line(text);
  }

  get wroteText(): boolean {
    return this.streamedText;
  }
}

const RETRY_CAUSES: Partial<Record<ErrorKind, string>> = {
  rate_limit: "rate limited",
  overloaded: "overloaded",
  server: "server error",
  network: "connection failed",
};

/** "retrying in 4s (429 rate limited, attempt 2/5)" */
export function retryLine(notice: RetryNotice): string {
  const wait =
    notice.delayMs < 1000 ? `${Math.round(notice.delayMs)} ms` : `${Math.round(notice.delayMs / 1000)}s`;
  const cause = [notice.status, RETRY_CAUSES[notice.errorKind] ?? notice.errorKind.replace(/_/g, " ")]
    .filter((part) => part !== undefined)
    .join(" ");
  return `retrying in ${wait} (${cause}, attempt ${notice.attempt}/${notice.maxAttempts})`;
}

function phaseDetail(detail: Record<string, unknown> | undefined): string {
  if (!detail) return "";
  const parts = Object.entries(detail)
    .filter(([, value]) => ["string", "number", "boolean"].includes(typeof value))
    .map(([key, value]) => `${key} ${value}`);
  return parts.length > 0 ? ` (${parts.join(", ")})` : "";
}
