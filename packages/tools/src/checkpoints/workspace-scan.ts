// Finds what a `bash` command changed in the workspace: a bounded walk before the command (stat,
// and the bytes of every file not seen unchanged before, into the blob store) and one after it;
// files whose size, mtime or inode moved, appeared or vanished are the command's changes.
// The walk honours .gitignore and never enters .git or node_modules, so changes there (and
// anywhere outside the workspace) are not tracked.

import { lstat } from "node:fs/promises";
import { walkFiles } from "../walk.js";
import type { Workspace } from "../workspace.js";
import { type CheckpointStore, type FileState, MAX_SNAPSHOT_FILE_BYTES } from "./store.js";

/** Files one scan looks at; past this, changes to the rest are not tracked (and the log says so). */
export const MAX_SCAN_FILES = 20_000;
/** Bytes one scan copies into the blob store; past this, further changed files are recorded as skipped. */
export const MAX_SCAN_SNAPSHOT_BYTES = 200 * 1024 * 1024;

interface Seen {
  size: number;
  mtimeMs: number;
  ino: number;
  state: FileState;
}

export interface ScanResult {
  files: Map<string, Seen>;
  /** Set when the walk stopped at MAX_SCAN_FILES or the byte budget ran out. */
  limited?: string;
}

export interface ScanChange {
  abs: string;
  before: FileState;
}

/** Remembers what each scan stored, so a file unchanged since the last scan is not copied again. */
export class WorkspaceScanner {
  private readonly known = new Map<string, Seen>();

  constructor(
    private readonly ws: Workspace,
    private readonly store: CheckpointStore,
  ) {}

  /** Before a command: every file's stat and a restorable state (bytes stored once per version). */
  async before(): Promise<ScanResult> {
    const files = new Map<string, Seen>();
    let budget = MAX_SCAN_SNAPSHOT_BYTES;
    let limited: string | undefined;
    for await (const file of walkFiles(this.ws, this.ws.root)) {
      if (files.size >= MAX_SCAN_FILES) {
        limited = `the workspace has more than ${MAX_SCAN_FILES} files; bash changes past the first ${MAX_SCAN_FILES} are not tracked`;
        break;
      }
      const info = await lstat(file.abs).catch(() => undefined);
      if (!info?.isFile()) continue;
      const old = this.known.get(file.abs);
      if (old && old.size === info.size && old.mtimeMs === info.mtimeMs && old.ino === info.ino) {
        files.set(file.abs, old);
        continue;
      }
      let state: FileState;
      if (info.size > budget && info.size <= MAX_SNAPSHOT_FILE_BYTES) {
        limited ??= `more than ${MAX_SCAN_SNAPSHOT_BYTES / 1024 / 1024} MiB changed since the last snapshot; some files were not snapshotted`;
        state = { kind: "skipped", size: info.size, why: "over the byte budget of one workspace scan" };
      } else {
        state = await this.store.snapshot(file.abs);
        if (state.kind === "file") budget -= state.size;
      }
      const seen = { size: info.size, mtimeMs: info.mtimeMs, ino: info.ino, state };
      files.set(file.abs, seen);
      this.known.set(file.abs, seen);
    }
    return limited ? { files, limited } : { files };
  }

  /** After a command: the paths it changed, with what they held before. */
  async after(before: ScanResult): Promise<ScanChange[]> {
    const changes: ScanChange[] = [];
    const present = new Set<string>();
    let count = 0;
    for await (const file of walkFiles(this.ws, this.ws.root)) {
      if (++count > MAX_SCAN_FILES) break;
      const info = await lstat(file.abs).catch(() => undefined);
      if (!info?.isFile()) continue;
      present.add(file.abs);
      const old = before.files.get(file.abs);
      if (!old) {
        // A file the first walk did not reach is not new when that walk was cut short.
        if (!before.limited) changes.push({ abs: file.abs, before: { kind: "absent" } });
      } else if (old.size !== info.size || old.mtimeMs !== info.mtimeMs || old.ino !== info.ino)
        changes.push({ abs: file.abs, before: old.state });
    }
    if (count <= MAX_SCAN_FILES)
      for (const [abs, old] of before.files) if (!present.has(abs)) changes.push({ abs, before: old.state });
    return changes;
  }
}
