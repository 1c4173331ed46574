// Sessions backed by one JSONL file: create (new file + lock), open for writing (lock, read,
// acknowledge a torn tail), load read-only (no lock).
import { isAscii } from "node:buffer";
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import type { ContextOptions } from "./context.js";
import { randomHex } from "./crypto.js";
import { SessionError } from "./errors.js";
import { FileAppender } from "./file-appender.js";
import { acquireLock, type SessionLock } from "./lock.js";
import { type ParsedSession, parseSession } from "./parse.js";
import { asciiLine, Session, type SessionSink } from "./session.js";
import type { RecoveredEntry, SessionHeader, SessionOptions } from "./types.js";

export interface FileSessionOptions extends SessionOptions {
  contextOptions?: ContextOptions;
}

class FileSink implements SessionSink {
  constructor(
    private readonly appender: FileAppender,
    private readonly lock: SessionLock,
  ) {}

  append(line: string): void {
    this.appender.write(`${line}\n`);
  }

  flush(): void {
    this.appender.flush();
  }

  close(): void {
    try {
      this.appender.close();
    } finally {
      this.lock.release();
    }
  }
}

/** Creates `path` with `header` and returns it open for writing. Fails if the file exists. */
export function createFileSession(
  path: string,
  header: SessionHeader,
  options: FileSessionOptions = {},
): Session {
  mkdirSync(dirname(path), { recursive: true });
  const lock = acquireLock(path);
  const fsync = options.fsync ?? "turn";
  // The header is written to a side file that is then linked into place (link fails if the name
  // exists): a crash can never leave a session file without its header.
  const draft = `${path}.${process.pid}.${randomHex(4)}.tmp`;
  try {
    const draftAppender = new FileAppender(draft, fsync, true);
    draftAppender.write(`${asciiLine(JSON.stringify(header))}\n`);
    draftAppender.close();
    linkSync(draft, path);
    const appender = new FileAppender(path, fsync);
    if (fsync !== "never") syncDirectory(dirname(path));
    return new Session({
      header,
      path,
      sink: new FileSink(appender, lock),
      options,
      contextOptions: options.contextOptions,
    });
  } catch (error) {
    lock.release();
    if ((error as NodeJS.ErrnoException).code === "EEXIST")
      throw new SessionError("invalid", `${path}: a session file already exists there`, path);
    throw error;
  } finally {
    rmSync(draft, { force: true });
  }
}

/** Opens an existing file for writing: takes the lock (or throws "locked"), loads, repairs the tail. */
export function openFileSession(path: string, options: FileSessionOptions = {}): Session {
  const lock = acquireLock(path);
  try {
    const parsed = readSessionFile(path);
    const appender = new FileAppender(path, options.fsync ?? "turn");
    let tail = parsed.endsWithNewline ? "" : "\n";
    if (parsed.torn) {
      const marker: RecoveredEntry = {
        type: "recovered",
        line: parsed.torn.line,
        bytes: parsed.torn.bytes,
        timestamp: new Date((options.now ?? Date.now)()).toISOString(),
      };
      tail += `${JSON.stringify(marker)}\n`;
    }
    if (tail !== "") {
      appender.write(tail);
      appender.flush();
    }
    return sessionFrom(parsed, path, options, new FileSink(appender, lock));
  } catch (error) {
    lock.release();
    throw error;
  }
}

/** A read-only snapshot; takes no lock, so it works while another process writes. */
export function loadFileSession(path: string, options: FileSessionOptions = {}): Session {
  return sessionFrom(readSessionFile(path), path, options, undefined);
}

export function readSessionFile(path: string): ParsedSession {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT")
      throw new SessionError("not_found", `${path}: no such session file`, path);
    throw error;
  }
  return parseSession(decodeSessionBytes(bytes), path);
}

export function decodeSessionBytes(bytes: Buffer): string {
  // Files this package writes are ASCII (see asciiLine), and decoding ASCII as latin1 is some 50
  // times faster than the UTF-8 decoder: the difference is most of a large session's load time.
  return isAscii(bytes) ? bytes.toString("latin1") : bytes.toString("utf8");
}

function sessionFrom(parsed: ParsedSession, path: string, options: FileSessionOptions, sink?: SessionSink) {
  return new Session({
    header: parsed.header,
    entries: parsed.entries,
    events: parsed.events,
    warnings: parsed.warnings,
    path,
    sink,
    options,
    contextOptions: options.contextOptions,
  });
}

/** A new file's directory entry must reach the disk too, or a crash can lose the whole file. */
function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, "r");
    fsyncSync(fd);
  } catch {
    // Some platforms cannot fsync a directory; the file itself is synced.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
