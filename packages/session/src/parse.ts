// Reads a session file's text into its header, tree entries and event log. A partial last line
// (a crash mid-write) is skipped with a warning; any other bad line is an error naming file and line.
import { corruptLine, SessionError } from "./errors.js";
import {
  type EventEntry,
  SESSION_FORMAT_VERSION,
  type SessionEntry,
  type SessionHeader,
  type SessionWarning,
} from "./types.js";

export interface ParsedSession {
  header: SessionHeader;
  /** Tree entries in file order (a parent always comes before its children). */
  entries: SessionEntry[];
  events: EventEntry[];
  warnings: SessionWarning[];
  /** The partial last line, if any: the next writer acknowledges it with a `recovered` line. */
  torn?: { line: number; bytes: number };
  /** Whether the text ends with "\n" (the next writer must start a new line if not). */
  endsWithNewline: boolean;
  /** Number of lines (the last one counted even without a newline). */
  lineCount: number;
}

const TREE_TYPES = new Set([
  "message",
  "model_change",
  "thinking_level_change",
  "compaction",
  "branch_summary",
  "label",
  "custom",
  "custom_message",
  "session_info",
]);

interface BadLine {
  line: number;
  bytes: number;
  reason: string;
}

export function parseSession(text: string, file: string): ParsedSession {
  const lines = text.split("\n");
  const endsWithNewline = text.endsWith("\n");
  if (endsWithNewline) lines.pop();
  let header: SessionHeader | undefined;
  const entries: SessionEntry[] = [];
  const events: EventEntry[] = [];
  const warnings: SessionWarning[] = [];
  const ids = new Set<string>();
  // An unparsable line is only known to be harmless once we see what follows it.
  let pending: BadLine | undefined;

  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    const lineNo = i + 1;
    if (raw.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      if (pending) throw corruptLine(file, pending.line, pending.reason);
      pending = { line: lineNo, bytes: Buffer.byteLength(raw), reason: (error as Error).message };
      continue;
    }
    const line = value as Record<string, unknown>;
    if (pending) {
      if (line?.type !== "recovered" || line.line !== pending.line)
        throw corruptLine(file, pending.line, pending.reason);
      warnings.push({
        line: pending.line,
        message: `${file}:${pending.line}: partial line from an earlier crash (${pending.bytes} bytes), skipped`,
      });
      pending = undefined;
      continue;
    }
    if (typeof line !== "object" || line === null || Array.isArray(line))
      throw corruptLine(file, lineNo, "not a JSON object");
    if (!header) {
      header = checkHeader(line, file, lineNo);
      continue;
    }
    const type = line.type;
    if (type === "event") {
      const seq = line.seq;
      const expected = (events.at(-1)?.seq ?? 0) + 1;
      if (seq !== expected) throw corruptLine(file, lineNo, `event seq ${String(seq)}, expected ${expected}`);
      if (typeof line.event !== "object" || line.event === null)
        throw corruptLine(file, lineNo, "event line without an event");
      events.push(line as unknown as EventEntry);
      continue;
    }
    if (type === "recovered") continue; // acknowledges a torn line that is not there any more: harmless
    if (typeof type !== "string" || !TREE_TYPES.has(type))
      throw corruptLine(file, lineNo, `unknown entry type ${JSON.stringify(type)}`);
    const { id, parentId } = line;
    if (typeof id !== "string" || id === "") throw corruptLine(file, lineNo, "entry without an id");
    if (ids.has(id)) throw corruptLine(file, lineNo, `duplicate entry id "${id}"`);
    if (parentId !== null && (typeof parentId !== "string" || !ids.has(parentId)))
      throw corruptLine(file, lineNo, `parent "${String(parentId)}" is not an earlier entry`);
    ids.add(id);
    entries.push(line as unknown as SessionEntry);
  }

  let torn: ParsedSession["torn"];
  if (pending) {
    torn = { line: pending.line, bytes: pending.bytes };
    warnings.push({
      line: pending.line,
      message: `${file}:${pending.line}: partial last line (${pending.bytes} bytes, the process stopped mid-write), skipped`,
    });
  }
  if (!header) throw new SessionError("format", `${file}: no session header line`, file, 1);
  return { header, entries, events, warnings, torn, endsWithNewline, lineCount: lines.length };
}

function checkHeader(line: Record<string, unknown>, file: string, lineNo: number): SessionHeader {
  if (line.type !== "session" || typeof line.id !== "string")
    throw new SessionError("format", `${file}:${lineNo}: expected a session header line`, file, lineNo);
  const version = line.version;
  if (typeof version !== "number" || version > SESSION_FORMAT_VERSION)
    throw new SessionError(
      "format",
      `${file}: session format version ${String(version)} is newer than this reader (${SESSION_FORMAT_VERSION})`,
      file,
      lineNo,
    );
  return line as unknown as SessionHeader;
}
