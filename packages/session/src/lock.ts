// One writer per session: a lock file created with O_EXCL holds the writer's pid, host and start
// time. A lock whose process is gone (same host, `kill(pid, 0)` says ESRCH) is stale and taken over.
import {
  closeSync,
  linkSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { hostname } from "node:os";
import { randomHex } from "./crypto.js";
import { SessionError } from "./errors.js";

export interface LockOwner {
  pid: number;
  hostname: string;
  /** ISO 8601: when the writer took the lock. */
  started: string;
  /** Tells two holders with the same pid apart (a reused pid, a second writer in this process). */
  nonce: string;
}

export interface SessionLock {
  readonly path: string;
  readonly owner: LockOwner;
  release(): void;
}

/** Locks held by this process, released on exit so a clean exit never leaves a stale lock. */
const held = new Map<string, string>();
let exitHookInstalled = false;

export function lockPathFor(file: string): string {
  return `${file}.lock`;
}

/** Takes the lock for `file` or throws a "locked" SessionError naming the live holder. */
export function acquireLock(file: string): SessionLock {
  const path = lockPathFor(file);
  const owner: LockOwner = {
    pid: process.pid,
    hostname: hostname(),
    started: new Date().toISOString(),
    nonce: randomHex(8),
  };
  const body = `${JSON.stringify(owner)}\n`;
  // Several rounds: a takeover can race with another process doing the same, and a lock file
  // is empty for the instant between its creation and its write.
  for (let attempt = 0; attempt < 20; attempt++) {
    if (tryCreate(path, body)) return track(path, owner);
    const current = readOwner(path);
    if (current === undefined) continue; // released meanwhile: try again
    if (current.pid === 0 && isLive(current, path)) {
      sleepSync(10); // being written right now
      continue;
    }
    if (isLive(current, path)) throw lockedError(file, current);
    takeOver(path, current);
  }
  const current = readOwner(path);
  throw current
    ? lockedError(file, current)
    : new SessionError("locked", `${file}: could not take the lock`, file);
}

/** The live writer of `file`, if any (a stale lock counts as none). */
export function liveLockOwner(file: string): LockOwner | undefined {
  const path = lockPathFor(file);
  const current = readOwner(path);
  return current && isLive(current, path) ? current : undefined;
}

/** Removes a stale lock file; returns false when a live writer holds it. */
export function clearStaleLock(file: string): boolean {
  const path = lockPathFor(file);
  const current = readOwner(path);
  if (!current) return true;
  if (isLive(current, path)) return false;
  takeOver(path, current);
  return true;
}

function tryCreate(path: string, body: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, "wx");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
  try {
    writeSync(fd, body);
  } finally {
    closeSync(fd);
  }
  return true;
}

function readOwner(path: string): LockOwner | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  try {
    const owner = JSON.parse(text) as LockOwner;
    if (typeof owner.pid === "number") return owner;
  } catch {}
  return unreadable(path, text);
}

/**
 * A lock file without a readable owner: either its creator is between create and write (young),
 * or a crash left it so (old). Its age stands in for the pid check.
 */
function unreadable(path: string, text: string): LockOwner {
  let mtimeMs = 0;
  try {
    mtimeMs = statSync(path).mtimeMs;
  } catch {}
  return {
    pid: 0,
    hostname: hostname(),
    started: new Date(mtimeMs).toISOString(),
    nonce: `unreadable:${text}`,
  };
}

const UNREADABLE_GRACE_MS = 10_000;

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function isLive(owner: LockOwner, path: string): boolean {
  if (owner.hostname !== hostname()) return true; // cannot check another machine: assume live
  if (owner.pid === 0) return Date.now() - Date.parse(owner.started) < UNREADABLE_GRACE_MS;
  if (owner.pid === process.pid) return held.get(path) === owner.nonce;
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive but someone else's process.
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
}

/**
 * Removes the stale lock `seen`, without ever removing a fresh lock another process just took:
 * the file is moved aside first, and put back if what was moved is not the stale one.
 */
function takeOver(path: string, seen: LockOwner): void {
  const aside = `${path}.${process.pid}.${randomHex(4)}`;
  try {
    renameSync(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  const moved = readOwner(aside);
  if (moved && moved.nonce !== seen.nonce) {
    try {
      linkSync(aside, path); // fails only if yet another lock appeared meanwhile; that one then stands
    } catch {}
  }
  unlinkSync(aside);
}

function track(path: string, owner: LockOwner): SessionLock {
  held.set(path, owner.nonce);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once("exit", () => {
      for (const [lockPath, nonce] of held) releaseIfOurs(lockPath, nonce);
    });
  }
  let released = false;
  return {
    path,
    owner,
    release() {
      if (released) return;
      released = true;
      held.delete(path);
      releaseIfOurs(path, owner.nonce);
    },
  };
}

function releaseIfOurs(path: string, nonce: string): void {
  if (readOwner(path)?.nonce !== nonce) return;
  try {
    unlinkSync(path);
  } catch {}
}

function lockedError(file: string, owner: LockOwner): SessionError {
  const where = owner.hostname === hostname() ? "" : ` on host ${owner.hostname}`;
  return new SessionError(
    "locked",
    `${file} is being written by another process (pid ${owner.pid}${where}, since ${owner.started}); ` +
      "close that session first, or open this one read-only",
    file,
  );
}
