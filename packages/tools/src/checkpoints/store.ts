// Where a session's checkpoints live: `<dir>/blobs/` holds file contents addressed by their
// SHA-256 (raw bytes, so binary files round-trip), `<dir>/log.jsonl` an append-only list of what
// each turn's tools found before and left after. Nothing here knows about git.

import { createHash, randomBytes } from "node:crypto";
import { createReadStream, type Stats } from "node:fs";
import { appendFile, lstat, mkdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import path from "node:path";

/** Files larger than this are not snapshotted (their record says so); rewind cannot restore them. */
export const MAX_SNAPSHOT_FILE_BYTES = 10 * 1024 * 1024;

/**
 * What was at a path: nothing, a file whose bytes are in the blob store (or, in "after" records,
 * only hashed), or something not kept: a file over MAX_SNAPSHOT_FILE_BYTES, a symlink, a directory.
 */
export type FileState =
  | { kind: "absent" }
  | { kind: "file"; hash: string; size: number; mode: number }
  | { kind: "skipped"; size: number; why: string };

export type CheckpointRecord =
  /** The state a path had before a tool of `turn` changed it (restorable when kind is absent or file). */
  | { type: "before"; turn: string; tool: string; path: string; state: FileState; at: string }
  /** The state a tool of `turn` left at a path (hash only; used to notice changes made outside tern). */
  | { type: "after"; turn: string; tool: string; path: string; state: FileState; at: string }
  /** A rewind wrote `state` to the path. */
  | { type: "restored"; path: string; state: FileState; at: string }
  /** Something a turn may have changed that could not be tracked, in words. */
  | { type: "untracked"; turn: string; tool: string; note: string; at: string };

export type NewRecord = CheckpointRecord extends infer R
  ? R extends { at: string }
    ? Omit<R, "at">
    : never
  : never;

export class CheckpointStore {
  private readonly logPath: string;
  private readonly blobDir: string;

  constructor(readonly dir: string) {
    this.logPath = path.join(dir, "log.jsonl");
    this.blobDir = path.join(dir, "blobs");
  }

  /** `$TERN_HOME/checkpoints/<session id>`. */
  static forSession(home: string, sessionId: string): CheckpointStore {
    return new CheckpointStore(path.join(home, "checkpoints", sessionId));
  }

  async append(record: NewRecord): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const line = JSON.stringify({ ...record, at: new Date().toISOString() });
    await appendFile(this.logPath, `${line}\n`, { mode: 0o600 });
  }

  /** Every record in order. A torn or garbled line (a crash mid-append) is skipped, not fatal. */
  async records(): Promise<{ records: CheckpointRecord[]; skipped: number }> {
    let text: string;
    try {
      text = await readFile(this.logPath, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return { records: [], skipped: 0 };
      throw error;
    }
    const records: CheckpointRecord[] = [];
    let skipped = 0;
    for (const line of text.split("\n")) {
      if (line.trim() === "") continue;
      try {
        const record = JSON.parse(line) as CheckpointRecord;
        if (typeof record?.type === "string") records.push(record);
        else skipped++;
      } catch {
        skipped++;
      }
    }
    return { records, skipped };
  }

  /** Stores bytes under their hash (once); returns the hash. */
  async putBlob(bytes: Buffer): Promise<string> {
    const hash = sha256(bytes);
    const target = this.blobPath(hash);
    try {
      await stat(target);
      return hash;
    } catch {}
    await mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
    const temp = `${target}.${randomBytes(4).toString("hex")}.tmp`;
    await writeFile(temp, bytes, { mode: 0o600 });
    await rename(temp, target);
    return hash;
  }

  async getBlob(hash: string): Promise<Buffer> {
    if (!/^[0-9a-f]{64}$/.test(hash)) throw new Error(`not a blob hash: ${JSON.stringify(hash)}`);
    return readFile(this.blobPath(hash));
  }

  /** Snapshots what is at `abs` now: its bytes go to the blob store unless it is too big. */
  async snapshot(abs: string): Promise<FileState> {
    const info = await lstatOrNull(abs);
    if (!info) return { kind: "absent" };
    if (!info.isFile()) return notAFile(info);
    if (info.size > MAX_SNAPSHOT_FILE_BYTES) return tooBig(info.size);
    const bytes = await readFile(abs);
    if (bytes.length > MAX_SNAPSHOT_FILE_BYTES) return tooBig(bytes.length);
    return { kind: "file", hash: await this.putBlob(bytes), size: bytes.length, mode: info.mode & 0o7777 };
  }

  private blobPath(hash: string): string {
    return path.join(this.blobDir, hash.slice(0, 2), hash);
  }
}

/** What is at `abs` now, hashed but not stored (for "after" records and the outside-change check). */
export async function currentState(abs: string): Promise<FileState> {
  const info = await lstatOrNull(abs);
  if (!info) return { kind: "absent" };
  if (!info.isFile()) return notAFile(info);
  const hash = await hashFile(abs);
  return { kind: "file", hash, size: info.size, mode: info.mode & 0o7777 };
}

function tooBig(size: number): FileState {
  return {
    kind: "skipped",
    size,
    why: `larger than the ${MAX_SNAPSHOT_FILE_BYTES / 1024 / 1024} MiB snapshot limit`,
  };
}

function notAFile(info: Stats): FileState {
  const what = info.isSymbolicLink()
    ? "a symlink"
    : info.isDirectory()
      ? "a directory"
      : "not a regular file";
  return { kind: "skipped", size: info.size, why: `${what} (only regular files are snapshotted)` };
}

/** Same content at the path (modes are restored but do not count as a change). */
export function sameContent(a: FileState, b: FileState): boolean {
  if (a.kind === "absent" || b.kind === "absent") return a.kind === b.kind;
  return a.kind === "file" && b.kind === "file" && a.hash === b.hash;
}

export function sha256(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}

function hashFile(abs: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash("sha256");
    createReadStream(abs)
      .on("data", (chunk) => hash.update(chunk))
      .on("error", reject)
      .on("end", () => resolve(hash.digest("hex")));
  });
}

async function lstatOrNull(abs: string) {
  try {
    return await lstat(abs);
  } catch (error) {
    if (
      (error as NodeJS.ErrnoException).code === "ENOENT" ||
      (error as NodeJS.ErrnoException).code === "ENOTDIR"
    )
      return null;
    throw error;
  }
}
