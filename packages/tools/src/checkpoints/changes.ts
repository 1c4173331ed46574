// What a session changed, from its checkpoints: for each path a tool touched, the first state
// recorded before any change against what is there now, as a unified diff. Read-only; a path that
// is back to how it was (rewound, or edited back) is not a change. Binary and oversized files are
// listed with a note instead of a diff.

import { readFile } from "node:fs/promises";
import { createTwoFilesPatch } from "diff";
import { displayPath } from "../workspace.js";
import { type CheckpointStore, currentState, type FileState, sameContent } from "./store.js";

/** Files bigger than this (either side) are listed without a diff. */
export const MAX_DIFF_FILE_BYTES = 512 * 1024;
/** A diff needing more edits than this is not worked out (Myers' cost grows with it). */
export const MAX_DIFF_EDITS = 20_000;

export interface FileChange {
  /** Relative to `cwd` when inside it, else absolute. */
  path: string;
  status: "added" | "modified" | "deleted";
  /** A unified diff from the checkpointed content to the file now ("" when `note` says why not). */
  diff: string;
  note?: string;
}

export interface ChangesOptions {
  /** Paths under it are shown relative to it. */
  cwd?: string;
  maxFileBytes?: number;
  maxEdits?: number;
}

/** The session's changes, in the order the paths were first touched. */
export async function sessionChanges(
  store: CheckpointStore,
  options: ChangesOptions = {},
): Promise<FileChange[]> {
  const { records } = await store.records();
  const first = new Map<string, FileState>();
  for (const record of records)
    if (record.type === "before" && !first.has(record.path)) first.set(record.path, record.state);
  const changes: FileChange[] = [];
  for (const [file, before] of first) {
    const now = await currentState(file);
    if (sameContent(before, now)) continue;
    if (before.kind === "skipped" && now.kind === "skipped") continue;
    const status = before.kind === "absent" ? "added" : now.kind === "absent" ? "deleted" : "modified";
    const shown = displayPath(file, options.cwd);
    changes.push({ path: shown, status, ...(await diffOf(store, file, shown, before, now, options)) });
  }
  return changes;
}

async function diffOf(
  store: CheckpointStore,
  file: string,
  shown: string,
  before: FileState,
  now: FileState,
  options: ChangesOptions,
): Promise<{ diff: string; note?: string }> {
  const limit = options.maxFileBytes ?? MAX_DIFF_FILE_BYTES;
  for (const state of [before, now]) {
    if (state.kind === "skipped") return { diff: "", note: state.why };
    if (state.kind === "file" && state.size > limit)
      return { diff: "", note: `larger than ${limit} bytes; not diffed` };
  }
  const old = before.kind === "file" ? await store.getBlob(before.hash) : Buffer.alloc(0);
  let current: Buffer;
  try {
    current = now.kind === "file" ? await readFile(file) : Buffer.alloc(0);
  } catch (error) {
    return { diff: "", note: `cannot read it now: ${(error as Error).message}` };
  }
  if (old.includes(0) || current.includes(0)) return { diff: "", note: "binary file" };
  const patch = createTwoFilesPatch(
    before.kind === "absent" ? "/dev/null" : `a/${shown}`,
    now.kind === "absent" ? "/dev/null" : `b/${shown}`,
    old.toString("utf8"),
    current.toString("utf8"),
    undefined,
    undefined,
    { maxEditLength: options.maxEdits ?? MAX_DIFF_EDITS },
  );
  if (patch === undefined) return { diff: "", note: "too many differences to diff" };
  return { diff: patch };
}
