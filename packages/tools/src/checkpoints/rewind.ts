// Puts files back as they were before a set of turns: for each path those turns touched, the
// first state recorded before any of them changed it. A path is refused (unless forced) when what
// is there now is not what tern last left there: someone changed it outside tern since.

import { randomBytes } from "node:crypto";
import { chmod, mkdir, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import {
  type CheckpointRecord,
  type CheckpointStore,
  currentState,
  type FileState,
  sameContent,
} from "./store.js";

export interface RewindFile {
  path: string;
  /** What the path will hold. */
  target: FileState;
  /** What it holds now. */
  current: FileState;
}

/** Each list in path order, whatever order the turns touched the files in. */
export interface RewindPlan {
  /** Paths to write or delete. */
  restore: RewindFile[];
  /** Paths changed since tern last touched them (restored only when forced). */
  conflicts: RewindFile[];
  /** Paths that cannot be restored, with why (too big, not a regular file). */
  unrestorable: { path: string; why: string }[];
  /** Notes of the turns about changes that were not tracked. */
  untracked: string[];
  /** Log lines that could not be read. */
  skippedRecords: number;
}

/** What rewinding `turns` (ids of the turns to undo, any order) would do. Reads files, writes nothing. */
export async function planRewind(store: CheckpointStore, turns: Iterable<string>): Promise<RewindPlan> {
  const undo = new Set(turns);
  const { records, skipped } = await store.records();
  const first = new Map<string, FileState>();
  const lastKnown = new Map<string, FileState>();
  const untracked: string[] = [];
  for (const record of records) {
    if (record.type === "after" || record.type === "restored") lastKnown.set(record.path, record.state);
    if (!inTurns(record, undo)) continue;
    if (record.type === "before" && !first.has(record.path)) first.set(record.path, record.state);
    if (record.type === "untracked") untracked.push(record.note);
  }
  const plan: RewindPlan = {
    restore: [],
    conflicts: [],
    unrestorable: [],
    untracked,
    skippedRecords: skipped,
  };
  // In path order: the records' order is the order parallel tools happened to finish in.
  for (const [file, target] of [...first].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (target.kind === "skipped") {
      plan.unrestorable.push({ path: file, why: target.why });
      continue;
    }
    const current = await currentState(file);
    if (sameContent(current, target)) continue;
    const known = lastKnown.get(file);
    const entry = { path: file, target, current };
    if (known === undefined || !sameContent(current, known)) plan.conflicts.push(entry);
    else plan.restore.push(entry);
  }
  return plan;
}

export interface RewindResult {
  /** Paths written or deleted. */
  restored: string[];
  /** Paths that could not be written (a directory in the way, no permission), with why. */
  failed: { path: string; error: string }[];
}

/** Writes the plan's restorations (and its conflicts too when `force`). One failed path does not stop the rest. */
export async function applyRewind(
  store: CheckpointStore,
  plan: RewindPlan,
  force = false,
): Promise<RewindResult> {
  const files = force ? [...plan.restore, ...plan.conflicts] : plan.restore;
  const result: RewindResult = { restored: [], failed: [] };
  for (const file of files) {
    try {
      await restoreOne(store, file.path, file.target);
    } catch (error) {
      result.failed.push({ path: file.path, error: (error as Error).message });
      continue;
    }
    await store.append({ type: "restored", path: file.path, state: file.target });
    result.restored.push(file.path);
  }
  return result;
}

async function restoreOne(store: CheckpointStore, file: string, target: FileState): Promise<void> {
  if (target.kind === "absent") {
    await rm(file, { force: true });
    return;
  }
  if (target.kind !== "file") return;
  const bytes = await store.getBlob(target.hash);
  await mkdir(path.dirname(file), { recursive: true });
  // Written beside the file and renamed over it, so a crash never leaves half a file.
  const temp = path.join(
    path.dirname(file),
    `.${path.basename(file)}.tern-rewind-${randomBytes(4).toString("hex")}`,
  );
  await writeFile(temp, bytes, { mode: target.mode });
  await chmod(temp, target.mode);
  await rename(temp, file);
}

function inTurns(record: CheckpointRecord, turns: Set<string>): boolean {
  return "turn" in record && turns.has(record.turn);
}
