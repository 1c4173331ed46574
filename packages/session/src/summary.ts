// One line of `list`: title, dates, message count and cost of a session file.
import { basename } from "node:path";
import type { Message } from "@tern/ai";
import { readSessionFile } from "./file-session.js";
import type { SessionEntry, SessionSummary } from "./types.js";

const TITLE_LENGTH = 80;

export function summarize(path: string): SessionSummary {
  try {
    const parsed = readSessionFile(path);
    const stats = summarizeEntries(parsed.entries);
    const newest = [parsed.entries.at(-1)?.timestamp, parsed.events.at(-1)?.timestamp, parsed.header.created]
      .filter((value): value is string => value !== undefined)
      .sort()
      .at(-1)!;
    return {
      id: parsed.header.id,
      path,
      cwd: parsed.header.cwd,
      title: stats.title,
      created: parsed.header.created,
      updated: newest,
      messageCount: stats.messageCount,
      cost: stats.cost,
      ...(parsed.header.parentSession ? { parentSession: parsed.header.parentSession } : {}),
    };
  } catch (error) {
    return {
      id: basename(path, ".jsonl"),
      path,
      cwd: "",
      title: "",
      created: "",
      updated: "",
      messageCount: 0,
      cost: 0,
      error: (error as Error).message,
    };
  }
}

/** Over every entry of the file (all branches): each message was said and each call was paid for. */
export function summarizeEntries(entries: readonly SessionEntry[]): {
  title: string;
  messageCount: number;
  cost: number;
} {
  let name: string | undefined;
  let firstUser: string | undefined;
  let messageCount = 0;
  let cost = 0;
  for (const entry of entries) {
    if (entry.type === "session_info") name = entry.name;
    if (entry.type !== "message") continue;
    messageCount++;
    const message = entry.message;
    if (message.role === "assistant") cost += message.usage?.cost?.total ?? 0;
    if (message.role === "user" && firstUser === undefined) firstUser = textOf(message);
  }
  return { title: name ?? shorten(firstUser ?? ""), messageCount, cost };
}

function textOf(message: Message & { role: "user" }): string {
  if (typeof message.content === "string") return message.content;
  return message.content.map((part) => (part.type === "text" ? part.text : "")).join(" ");
}

function shorten(text: string): string {
  const oneLine = text.replace(/\s+/g, " ").trim();
  return oneLine.length <= TITLE_LENGTH ? oneLine : `${oneLine.slice(0, TITLE_LENGTH - 1)}…`;
}
