// The session index: one small JSON file per session directory (`.index.json`) holding, for
// each session file, its size and mtime when last read, the header, and the summary fold state
// (summary.ts) and the fold of its model calls' usage (usage-fold.ts). Listing then stats each file and reads only what changed: nothing for an
// unchanged file, the appended tail for a file that grew (session files are append-only), the
// whole file only when it is new or was rewritten. The index is a cache: a missing, corrupt or
// foreign index is ignored and rebuilt, and it is written atomically (temp file, then rename).
import {
  closeSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { randomHex } from "./crypto.js";
import { readdirOrEmpty } from "./dir-entries.js";
import { decodeSessionBytes } from "./file-session.js";
import { type ParsedSession, parseSession } from "./parse.js";
import { foldLine, type SummaryState, summarizeParsed, summaryOf, unreadable } from "./summary.js";
import type { SessionHeader, SessionSummary } from "./types.js";
import { foldUsageLine, isUsageFold, type UsageFold, usageFoldOf } from "./usage-fold.js";

export const INDEX_FILE = ".index.json";
/** 2: records carry `usage`. An index of another version is rebuilt from the files. */
const INDEX_VERSION = 2;
const NEWLINE = 0x0a;

interface IndexRecord {
  size: number;
  mtimeMs: number;
  /** Bytes of the file folded into `state`: always just after a newline. */
  offset: number;
  header?: SessionHeader;
  state?: SummaryState;
  usage?: UsageFold;
  /** Why the file could not be read when it had this size and mtime. */
  error?: string;
}

type Records = Record<string, IndexRecord>;

/** A session's list line and the usage of its model calls (undefined when it could not be read). */
export interface SessionUsage {
  summary: SessionSummary;
  usage?: UsageFold;
}

/** Every `*.jsonl` file's summary and usage fold, refreshing `dir`'s index where it is stale. */
export function indexSessionDirectory(dir: string): SessionUsage[] {
  const known = readIndex(dir);
  const next: Records = {};
  const out: SessionUsage[] = [];
  let changed = false;
  for (const name of readdirOrEmpty(dir)) {
    if (!name.endsWith(".jsonl")) continue;
    const path = join(dir, name);
    let size: number;
    let mtimeMs: number;
    try {
      ({ size, mtimeMs } = statSync(path));
    } catch {
      continue; // deleted while listing
    }
    let record = known[name];
    if (!record || record.size !== size || record.mtimeMs !== mtimeMs) {
      changed = true;
      record = (record && extend(path, record, size, mtimeMs)) ?? rebuild(path, size, mtimeMs);
    }
    next[name] = record;
    out.push({
      summary: summaryFrom(path, record),
      ...(record.usage && !record.error ? { usage: record.usage } : {}),
    });
  }
  if (changed || Object.keys(known).length !== Object.keys(next).length) writeIndex(dir, next);
  return out;
}

function summaryFrom(path: string, record: IndexRecord): SessionSummary {
  if (record.header && record.state) return summaryOf(record.header, record.state, path);
  return unreadable(path, record.error ?? "unreadable session file");
}

/** Reads and checks the whole file, as `summarize` does, up to its last complete line. */
function rebuild(path: string, size: number, mtimeMs: number): IndexRecord {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    return { size, mtimeMs, offset: 0, error: (error as Error).message };
  }
  // The fold covers exactly [0, offset): if the file grew after the stat, the next list sees a
  // new size and folds from there.
  const offset = bytes.lastIndexOf(NEWLINE) + 1;
  let parsed: ParsedSession | undefined;
  const { summary, state, header } = summarizeParsed(path, () => {
    parsed = parseSession(decodeSessionBytes(bytes.subarray(0, offset)), path);
    return parsed;
  });
  if (!state || !header || !parsed) return { size, mtimeMs, offset: 0, error: summary.error ?? "unreadable" };
  return { size, mtimeMs, offset, header, state, usage: usageFoldOf(parsed.events) };
}

/**
 * Folds the lines appended since the record was made. Undefined when the file did not simply
 * grow (shrunk, rewritten, a line that is not JSON): the caller then reads it whole.
 */
function extend(path: string, record: IndexRecord, size: number, mtimeMs: number): IndexRecord | undefined {
  if (!record.header || !record.state || !record.usage || size < record.offset || record.offset === 0)
    return undefined;
  let tail: Buffer;
  try {
    tail = readRange(path, record.offset - 1, size);
  } catch {
    return undefined;
  }
  // The byte before the tail must still be the newline that ended the last folded line.
  if (tail[0] !== NEWLINE) return undefined;
  const complete = tail.lastIndexOf(NEWLINE);
  const state: SummaryState = { ...record.state };
  const usage = structuredClone(record.usage);
  const text = decodeSessionBytes(tail.subarray(1, complete + 1));
  for (const raw of text.split("\n")) {
    if (raw.trim() === "") continue;
    let line: unknown;
    try {
      line = JSON.parse(raw);
    } catch {
      return undefined; // a torn line and its recovery: let the full reader judge it
    }
    if (typeof line !== "object" || line === null || Array.isArray(line)) return undefined;
    foldLine(state, line as { type?: unknown; timestamp?: unknown });
    if ((line as { type?: unknown }).type === "event") foldUsageLine(usage, line);
  }
  return { size, mtimeMs, offset: record.offset - 1 + complete + 1, header: record.header, state, usage };
}

function readRange(path: string, start: number, end: number): Buffer {
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.alloc(end - start);
    let read = 0;
    while (read < buffer.length) {
      const n = readSync(fd, buffer, read, buffer.length - read, start + read);
      if (n === 0) break;
      read += n;
    }
    return buffer.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}

function readIndex(dir: string): Records {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(join(dir, INDEX_FILE), "utf8"));
  } catch {
    return {};
  }
  const index = value as { version?: unknown; files?: unknown };
  if (index?.version !== INDEX_VERSION || typeof index.files !== "object" || index.files === null) return {};
  const records: Records = {};
  for (const [name, record] of Object.entries(index.files as Record<string, unknown>)) {
    if (isRecord(record)) records[name] = record;
  }
  return records;
}

/**
 * A hand-edited or foreign index must not feed nonsense into summaries: check every field used.
 * Runs for every session at each listing, so it allocates nothing per record.
 */
function isRecord(value: unknown): value is IndexRecord {
  const r = value as IndexRecord;
  if (typeof r !== "object" || r === null) return false;
  if (!isOffset(r.size) || !isOffset(r.mtimeMs) || !isOffset(r.offset)) return false;
  if (r.error !== undefined) return typeof r.error === "string";
  const h = r.header;
  const s = r.state;
  return (
    typeof h === "object" &&
    h !== null &&
    typeof h.id === "string" &&
    typeof h.cwd === "string" &&
    typeof h.created === "string" &&
    typeof s === "object" &&
    s !== null &&
    isUsageFold(r.usage) &&
    typeof s.messageCount === "number" &&
    typeof s.cost === "number" &&
    OPTIONAL_TEXT_KEYS.every((key) => s[key] === undefined || typeof s[key] === "string")
  );
}

const OPTIONAL_TEXT_KEYS = ["name", "firstUser", "lastEntry", "lastEvent"] as const;
const isOffset = (n: unknown) => typeof n === "number" && Number.isFinite(n) && n >= 0;

/**
 * JSON with every non-ASCII character escaped: titles end in "…", and one such character makes
 * the whole file slower to decode and parse at every listing (a two-byte string instead of a
 * one-byte copy). JSON.parse reads the escapes back, surrogate pairs included.
 */
function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u0080-\uffff]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

function writeIndex(dir: string, records: Records): void {
  const target = join(dir, INDEX_FILE);
  const draft = `${target}.${process.pid}.${randomHex(4)}.tmp`;
  try {
    writeFileSync(draft, asciiJson({ version: INDEX_VERSION, files: records }));
    renameSync(draft, target);
  } catch {
    // A read-only directory just means no index: listing still works, only slower.
    rmSync(draft, { force: true });
  }
}
