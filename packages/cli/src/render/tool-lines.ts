// Tool calls as compact, readable lines: "bash $ npm test", then "exit 1 · 12 lines".
import { ABORTED_TOOL_TEXT, type ToolOutcome } from "@tern/agent";
import { firstLine, oneLine, plural } from "./format.js";
import type { Style } from "./style.js";
import { terminalText } from "./terminal-text.js";

/** One line naming a call: the tool and its main argument (the model's words, so cleaned for a terminal). */
export function describeCall(name: string, args: Record<string, unknown>): string {
  return terminalText(callText(name, args));
}

function callText(name: string, args: Record<string, unknown>): string {
  const str = (key: string) => (typeof args[key] === "string" ? (args[key] as string) : undefined);
  switch (name) {
    case "read": {
      const offset = typeof args.offset === "number" ? args.offset : undefined;
      const limit = typeof args.limit === "number" ? args.limit : undefined;
      const range = offset || limit ? `:${offset ?? 1}${limit ? `-${(offset ?? 1) + limit - 1}` : ""}` : "";
      return `read ${str("path") ?? "?"}${range}`;
    }
    case "write": {
      const content = str("content");
      return `write ${str("path") ?? "?"}${content !== undefined ? ` (${plural(Buffer.byteLength(content), "byte")})` : ""}`;
    }
    case "edit": {
      const edits = Array.isArray(args.edits) ? args.edits.length : 0;
      return `edit ${str("path") ?? "?"}${edits > 1 ? ` (${edits} replacements)` : ""}`;
    }
    case "ls":
      return `ls ${str("path") ?? "."}`;
    case "glob":
      return `glob ${str("pattern") ?? "?"}${str("path") && str("path") !== "." ? ` in ${str("path")}` : ""}`;
    case "grep":
      return `grep /${str("pattern") ?? ""}/${str("path") && str("path") !== "." ? ` in ${str("path")}` : ""}${str("glob") ? ` (${str("glob")})` : ""}`;
    case "bash":
      return `bash $ ${oneLine(str("command") ?? "", 120)}${str("cwd") && str("cwd") !== "." ? ` (in ${str("cwd")})` : ""}`;
    case "task":
      return `task [${str("agent") ?? "general"}] ${oneLine(str("description") ?? "", 80)}`;
    case "todo_write":
      return `todo_write (${plural(Array.isArray(args.todos) ? args.todos.length : 0, "item")})`;
    case "web_fetch":
      return `web_fetch ${oneLine(str("url") ?? "?", 120)}`;
    default: {
      const json = JSON.stringify(args);
      return json === "{}" ? name : `${name} ${oneLine(json, 100)}`;
    }
  }
}

export type OutcomeStatus = "ok" | "error" | "denied";

export interface OutcomeLine {
  status: OutcomeStatus;
  text: string;
}

const DENIED = /^Tool call "[^"]*" was denied: /;

/** What happened, in a few words. */
/** The mark before a tool's result line: ✓ ran, ⊘ denied, ✗ failed. */
export function outcomeMark(status: OutcomeStatus, style: Style): string {
  if (status === "ok") return style.green("✓");
  return status === "denied" ? style.yellow("⊘") : style.red("✗");
}

export function describeOutcome(name: string, outcome: ToolOutcome): OutcomeLine {
  const text = outcomeText(outcome);
  if (DENIED.test(text)) return { status: "denied", text: oneLine(text.replace(DENIED, ""), 160) };
  if (text === ABORTED_TOOL_TEXT) return { status: "error", text: "aborted" };
  const details = (outcome.details ?? {}) as Record<string, unknown>;
  if (name === "bash" && details.command !== undefined) {
    const exit = details.timedOut
      ? "timed out"
      : details.aborted
        ? "aborted"
        : details.exitCode === null
          ? `killed (${details.signal})`
          : `exit ${details.exitCode}`;
    const body = text.replace(/\n*\n(Exit code: .*|The command .*)$/s, "");
    const lines = body === "(no output)" ? 0 : body.split("\n").length;
    const last = lastMeaningfulLine(body);
    const tail = outcome.isError && last ? ` · ${oneLine(last, 100)}` : "";
    return { status: outcome.isError ? "error" : "ok", text: `${exit} · ${plural(lines, "line")}${tail}` };
  }
  if (outcome.isError) return { status: "error", text: oneLine(firstLine(text), 160) };
  switch (name) {
    case "read":
      if (details.binary) return { status: "ok", text: "binary file, not shown" };
      if (typeof details.startLine === "number" && typeof details.endLine === "number") {
        const count = details.endLine === 0 ? 0 : details.endLine - details.startLine + 1;
        const total = typeof details.totalLines === "number" ? ` of ${details.totalLines}` : "";
        return { status: "ok", text: `${plural(count, "line")}${total}` };
      }
      break;
    case "write":
      if (typeof details.bytes === "number")
        return {
          status: "ok",
          text: `${details.created ? "created" : "wrote"} ${plural(details.bytes, "byte")}`,
        };
      break;
    case "edit":
      if (typeof details.linesAdded === "number")
        return { status: "ok", text: `+${details.linesAdded} -${details.linesRemoved} lines` };
      break;
    case "ls":
      if (Array.isArray(details.entries))
        return { status: "ok", text: plural(details.entries.length, "entry", "entries") };
      break;
    case "glob":
      if (Array.isArray(details.files)) return { status: "ok", text: plural(details.files.length, "file") };
      break;
    case "grep":
      if (Array.isArray(details.matches))
        return {
          status: "ok",
          text: `${plural(details.matches.length, "match", "matches")} in ${plural(Number(details.filesWithMatches ?? 0), "file")}`,
        };
      break;
  }
  const lines = text === "" ? 0 : text.split("\n").length;
  return { status: "ok", text: lines <= 1 ? oneLine(text, 100) || "done" : plural(lines, "line") };
}

/** The unified diff an edit returned, if any (for showing a few lines of it). */
export function editDiff(outcome: ToolOutcome): string | undefined {
  const diff = (outcome.details as { diff?: unknown } | undefined)?.diff;
  return typeof diff === "string" ? diff : undefined;
}

export function outcomeText(outcome: ToolOutcome): string {
  let text = "";
  for (const part of outcome.content) if (part.type === "text") text += part.text;
  return text;
}

/** The line that best says why a command failed: the last one naming a failure or error, else the last one. */
function lastMeaningfulLine(text: string): string | undefined {
  const lines = text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && line !== "(no output)");
  for (let i = lines.length - 1; i >= 0; i--)
    if (/\b(fail(ed|ing|ures?)?|errors?|not ok)\b|✖/i.test(lines[i]!)) return lines[i];
  return lines.at(-1);
}
