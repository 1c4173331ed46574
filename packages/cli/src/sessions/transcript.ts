// A session's conversation for people: `tern sessions show` (terminal lines with entry ids, so
// `fork ID ENTRY` can point at one) and `tern sessions export --format md` (markdown). User
// messages the agent's policies injected (a reflection, a cycle warning, …) are labelled as what
// they are, from the inject events of the session's event log; the person's own words are "you".
import { type InjectKind, isPlanEvent, type PlanEvent, type ToolOutcome } from "@tern/agent";
import type { AssistantMessage, Message, ToolCall, ToolResultMessage, Usage } from "@tern/ai";
import type { Session, SessionEntry } from "@tern/session";
import { formatCost, formatTokens, oneLine, plural } from "../render/format.js";
import { PlanTable } from "../render/plan-table.js";
import { createStyle, type Style } from "../render/style.js";
import { terminalText } from "../render/terminal-text.js";
import { describeCall, describeOutcome, outcomeMark, outcomeText } from "../render/tool-lines.js";

function textOf(message: Message): string {
  if (typeof message.content === "string") return message.content;
  return message.content
    .map((part) => (part.type === "text" ? part.text : part.type === "image" ? "[image]" : ""))
    .filter((text) => text !== "")
    .join("\n");
}

function toolCalls(message: AssistantMessage): ToolCall[] {
  return message.content.filter((part): part is ToolCall => part.type === "toolCall");
}

function outcomeOf(result: ToolResultMessage): ToolOutcome {
  return { content: result.content, details: result.details, isError: result.isError, terminate: false };
}

/** Injections that carry the person's own words. */
const FROM_THE_USER: ReadonlySet<InjectKind> = new Set(["steering", "follow_up"]);

/**
 * The kind of every injected user message that is not the person's, by message. The log holds
 * `inject` right before the injected message's `message_end`; a session without a log has none.
 */
export function injectedKinds(session: Session): Map<Message, InjectKind> {
  const kinds = new Map<Message, InjectKind>();
  let pending: InjectKind | undefined;
  for (const { event } of session.eventsAfter(0)) {
    if (event.type === "inject") pending = event.kind as InjectKind;
    else if (event.type === "message_end" && pending !== undefined) {
      if (!FROM_THE_USER.has(pending)) kinds.set(event.message as Message, pending);
      pending = undefined;
    }
  }
  return kinds;
}

/**
 * Each plan's events by the prompt that started it (a resumed plan's go with the same prompt), so
 * a transcript replays the plan under the question: rounds, steps, their ends and analyses.
 */
function plansByPrompt(session: Session): Map<Message, PlanEvent[]> {
  const plans = new Map<Message, PlanEvent[]>();
  let prompt: Message | undefined;
  for (const { event } of session.eventsAfter(0)) {
    if (event.type === "message_end" && (event.message as Message).role === "user")
      prompt = event.message as Message;
    else if (isPlanEvent(event) && prompt) {
      const list = plans.get(prompt) ?? [];
      list.push(event);
      plans.set(prompt, list);
    }
  }
  return plans;
}

/** A plan's replay, as the live step table drew it. */
function planLines(events: PlanEvent[], style: Style): string[] {
  const lines: string[] = [];
  const table = new PlanTable(
    style,
    (line) => lines.push(line),
    () => {},
  );
  for (const event of events) table.handle(event);
  return lines;
}

/** "cycle-warning", as the live progress lines name it. */
function kindLabel(kind: InjectKind): string {
  return kind.replace(/_/g, "-");
}

export interface Totals {
  messages: number;
  usage: Pick<Usage, "totalTokens"> & { cost: number };
}

export function totalsOf(entries: readonly SessionEntry[]): Totals {
  let messages = 0;
  let tokens = 0;
  let cost = 0;
  for (const entry of entries) {
    if (entry.type !== "message") continue;
    messages++;
    if (entry.message.role === "assistant") {
      tokens += entry.message.usage?.totalTokens ?? 0;
      cost += entry.message.usage?.cost?.total ?? 0;
    }
  }
  return { messages, usage: { totalTokens: tokens, cost } };
}

/** The current path of the session as terminal lines. */
export function showLines(session: Session, style: Style): string[] {
  const header = session.header;
  const out: string[] = [
    style.bold(`session ${header.id}`) + (session.name ? `  ${session.name}` : ""),
    style.dim(`cwd ${header.cwd} · created ${header.created}`),
  ];
  if (header.parentSession)
    out.push(
      style.dim(
        `forked from ${header.parentSession.id}${header.parentSession.entryId ? ` at ${header.parentSession.entryId}` : ""}`,
      ),
    );
  out.push("");
  const path = session.pathTo();
  const calls = new Map<string, ToolCall>();
  const injected = injectedKinds(session);
  const plans = plansByPrompt(session);
  for (const entry of path) {
    const id = style.dim(`[${entry.id}]`);
    const label = session.getLabel(entry.id);
    const tag = label ? style.magenta(` (${label})`) : "";
    switch (entry.type) {
      case "message": {
        const message = entry.message;
        const kind = injected.get(message);
        if (kind !== undefined) {
          out.push(
            `${id}${tag} ${style.magenta(`↪ ${kindLabel(kind)}`)}: ${indent(terminalText(textOf(message)))}`,
          );
        } else if (message.role === "user") {
          out.push(`${id}${tag} ${style.bold(style.cyan("you"))}: ${indent(terminalText(textOf(message)))}`);
          const plan = plans.get(message);
          if (plan) for (const line of planLines(plan, style)) out.push(`  ${line}`);
        } else if (message.role === "assistant") {
          const text = terminalText(textOf(message)).trim();
          const meta = style.dim(
            `${message.model} · ${formatTokens(message.usage.totalTokens)} tokens · ${formatCost(message.usage.cost.total)}${message.stopReason === "error" || message.stopReason === "aborted" ? ` · ${message.stopReason}${message.errorMessage ? `: ${oneLine(message.errorMessage, 80)}` : ""}` : ""}`,
          );
          out.push(`${id}${tag} ${style.bold(style.green("tern"))} ${meta}`);
          if (text) out.push(`  ${indent(text)}`);
          for (const call of toolCalls(message)) {
            calls.set(call.id, call);
            out.push(`  ${style.cyan("▸")} ${describeCall(call.name, call.arguments)}`);
          }
        } else {
          const outcome = describeOutcome(message.toolName, outcomeOf(message));
          const call = calls.get(message.toolCallId);
          const mark = outcomeMark(outcome.status, style);
          const what = call ? describeCall(call.name, call.arguments) : message.toolName;
          out.push(
            `${id}${tag}   ${mark} ${what} · ${outcome.status === "denied" ? "denied: " : ""}${outcome.text}`,
          );
        }
        break;
      }
      case "model_change":
        out.push(`${id} ${style.dim(`model → ${entry.provider}/${entry.modelId}`)}`);
        break;
      case "thinking_level_change":
        out.push(`${id} ${style.dim(`thinking → ${entry.thinkingLevel}`)}`);
        break;
      case "compaction":
        out.push(
          `${id} ${style.blue(`⟳ compaction (${formatTokens(entry.tokensBefore)} tokens before): ${oneLine(entry.summary, 120)}`)}`,
        );
        break;
      case "branch_summary":
        out.push(`${id} ${style.blue(`↩ branch summary: ${oneLine(entry.summary, 120)}`)}`);
        break;
      case "custom_message":
        if (entry.display !== false)
          out.push(
            `${id} ${style.magenta(entry.customType)}: ${oneLine(typeof entry.content === "string" ? entry.content : "", 160)}`,
          );
        break;
      case "session_info":
        out.push(`${id} ${style.dim(`named "${entry.name}"`)}`);
        break;
      default:
        break;
    }
  }
  const totals = totalsOf(session.entries());
  const leaves = session
    .entries()
    .filter((entry) => session.children(entry.id).length === 0 && entry.type !== "label").length;
  out.push("");
  out.push(
    style.dim(
      `${plural(totals.messages, "message")} · ${formatTokens(totals.usage.totalTokens)} tokens · ${formatCost(totals.usage.cost)}${leaves > 1 ? ` · ${leaves} branches (shown: the latest)` : ""}`,
    ),
  );
  return out;
}

function indent(text: string): string {
  return text.replace(/\n/g, "\n  ");
}

const MAX_RESULT_CHARS = 4000;

/** The current path as markdown. */
export function toMarkdown(session: Session): string {
  const header = session.header;
  const title = session.name ?? firstUserText(session) ?? header.id;
  const out: string[] = [
    `# ${oneLine(title, 100)}`,
    "",
    `- session: \`${header.id}\``,
    `- directory: \`${header.cwd}\``,
    `- created: ${header.created}`,
  ];
  if (header.parentSession) out.push(`- forked from: \`${header.parentSession.id}\``);
  const totals = totalsOf(session.entries());
  out.push(
    `- ${plural(totals.messages, "message")}, ${formatTokens(totals.usage.totalTokens)} tokens, ${formatCost(totals.usage.cost)}`,
    "",
  );
  const calls = new Map<string, ToolCall>();
  const injected = injectedKinds(session);
  const plans = plansByPrompt(session);
  for (const entry of session.pathTo()) {
    if (entry.type === "compaction") {
      out.push("## Compaction", "", entry.summary, "");
      continue;
    }
    if (entry.type === "model_change") {
      out.push(`*model: ${entry.provider}/${entry.modelId}*`, "");
      continue;
    }
    if (entry.type !== "message") continue;
    const message = entry.message;
    const kind = injected.get(message);
    if (kind !== undefined) out.push(`## ↪ ${kindLabel(kind)}`, "", textOf(message), "");
    else if (message.role === "user") {
      out.push("## You", "", textOf(message), "");
      const plan = plans.get(message);
      if (plan) out.push("### Plan", "", fence(planLines(plan, createStyle(false)).join("\n")), "");
    } else if (message.role === "assistant") {
      out.push(`## tern (${message.model})`, "");
      const text = textOf(message).trim();
      if (text) out.push(text, "");
      for (const call of toolCalls(message)) {
        calls.set(call.id, call);
        out.push(`**${call.name}** \`${describeCall(call.name, call.arguments).replace(/`/g, "'")}\``, "");
      }
      if (message.stopReason === "error" || message.stopReason === "aborted")
        out.push(`> ${message.stopReason}${message.errorMessage ? `: ${message.errorMessage}` : ""}`, "");
    } else {
      let text = outcomeText(outcomeOf(message));
      if (text.length > MAX_RESULT_CHARS)
        text = `${text.slice(0, MAX_RESULT_CHARS)}\n… (${text.length - MAX_RESULT_CHARS} more characters)`;
      const call = calls.get(message.toolCallId);
      out.push(
        `<details><summary>${message.isError ? "✗" : "✓"} ${escapeHtml(call ? describeCall(call.name, call.arguments) : message.toolName)}</summary>`,
        "",
        fence(text),
        "",
        "</details>",
        "",
      );
    }
  }
  return `${out.join("\n").trimEnd()}\n`;
}

function firstUserText(session: Session): string | undefined {
  for (const entry of session.pathTo())
    if (entry.type === "message" && entry.message.role === "user") return textOf(entry.message);
  return undefined;
}

function fence(text: string): string {
  let ticks = "```";
  while (text.includes(ticks)) ticks += "`";
  return `${ticks}\n${text}\n${ticks}`;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
