// One line of `list`: title, dates, message count and cost of a session file. The figures are a
// fold over the file's lines (SummaryState), so the session index can add a file's new tail to
// what it already knows instead of reading the whole file again.
import { basename } from "node:path";
import type { Message } from "@tern/ai";
import { readSessionFile } from "./file-session.js";
import type { ParsedSession } from "./parse.js";
import type { SessionEntry, SessionHeader, SessionSummary } from "./types.js";

const TITLE_LENGTH = 80;

/** What a summary needs from the lines read so far. Plain data: the index stores it as JSON. */
export interface SummaryState {
  name?: string;
  firstUser?: string;
  messageCount: number;
  cost: number;
  lastEntry?: string;
  lastEvent?: string;
}

export function emptySummaryState(): SummaryState {
  return { messageCount: 0, cost: 0 };
}

/** Adds one parsed line after the header (an entry, an event, a recovered marker) to `state`. */
export function foldLine(state: SummaryState, line: { type?: unknown; timestamp?: unknown }): void {
  const timestamp = typeof line.timestamp === "string" ? line.timestamp : undefined;
  if (line.type === "event") {
    if (timestamp !== undefined) state.lastEvent = timestamp;
    return;
  }
  if (line.type === "recovered") return;
  if (timestamp !== undefined) state.lastEntry = timestamp;
  const entry = line as SessionEntry;
  if (entry.type === "session_info") state.name = entry.name;
  if (entry.type !== "message") return;
  state.messageCount++;
  const message = entry.message;
  if (message?.role === "assistant") state.cost += message.usage?.cost?.total ?? 0;
  if (message?.role === "user" && state.firstUser === undefined) state.firstUser = shorten(textOf(message));
}

/** `path` is the file, for file stores; database stores have none. */
export function summaryOf(header: SessionHeader, state: SummaryState, path?: string): SessionSummary {
  // ISO times order as strings: the latest of the three, without sorting an array per session.
  let updated = header.created;
  if (state.lastEntry !== undefined && state.lastEntry > updated) updated = state.lastEntry;
  if (state.lastEvent !== undefined && state.lastEvent > updated) updated = state.lastEvent;
  return {
    id: header.id,
    ...(path !== undefined ? { path } : {}),
    cwd: header.cwd,
    title: state.name ?? state.firstUser ?? "",
    created: header.created,
    updated,
    messageCount: state.messageCount,
    cost: state.cost,
    ...(header.parentSession ? { parentSession: header.parentSession } : {}),
  };
}

/** Reads and checks the whole file. A file that cannot be read gives a summary with `error`. */
export function summarize(path: string): SessionSummary {
  return summarizeParsed(path, () => readSessionFile(path)).summary;
}

/** A summary from `parse()`, plus the fold state and header the session index keeps to extend it. */
export function summarizeParsed(
  path: string,
  parse: () => ParsedSession,
): { summary: SessionSummary; state?: SummaryState; header?: SessionHeader } {
  try {
    const parsed = parse();
    const state = emptySummaryState();
    // Entries and events interleave in the file; only the last timestamp of each kind matters.
    for (const entry of parsed.entries) foldLine(state, entry);
    const lastEvent = parsed.events.at(-1);
    if (lastEvent) foldLine(state, lastEvent as { type: "event"; timestamp?: unknown });
    return { summary: summaryOf(parsed.header, state, path), state, header: parsed.header };
  } catch (error) {
    return { summary: unreadable(path, (error as Error).message) };
  }
}

export function unreadable(path: string, error: string): SessionSummary {
  return unreadableSummary(basename(path, ".jsonl"), error, path);
}

/** The list line of a session that could not be read: its id and why; `path` for file stores. */
export function unreadableSummary(id: string, error: string, path?: string): SessionSummary {
  return {
    id,
    ...(path !== undefined ? { path } : {}),
    cwd: "",
    title: "",
    created: "",
    updated: "",
    messageCount: 0,
    cost: 0,
    error,
  };
}

/** Over every entry of the file (all branches): each message was said and each call was paid for. */
export function summarizeEntries(entries: readonly SessionEntry[]): {
  title: string;
  messageCount: number;
  cost: number;
} {
  const state = emptySummaryState();
  for (const entry of entries) foldLine(state, entry);
  return { title: state.name ?? state.firstUser ?? "", messageCount: state.messageCount, cost: state.cost };
}

function textOf(message: Message & { role: "user" }): string {
  if (typeof message.content === "string") return message.content;
  return message.content.map((part) => (part.type === "text" ? part.text : "")).join(" ");
}

function shorten(text: string): string {
  const oneLine = text.replace(/\s+/g, " ").trim();
  return oneLine.length <= TITLE_LENGTH ? oneLine : `${oneLine.slice(0, TITLE_LENGTH - 1)}…`;
}
