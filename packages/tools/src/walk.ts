// Walks the workspace tree for glob and grep: depth-first in name order, honouring .gitignore,
// never entering .git or node_modules, never following a symlink out of the root. Symlinked
// directories are not entered (no cycles); symlinked files count when they stay inside the root.
// Files a permission rule hides from reading (`read(.env*)` denied) are left out.

import type { Dirent } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import { setImmediate as nextTurn } from "node:timers/promises";
import { ALWAYS_SKIPPED, IgnoreStack } from "./ignore-rules.js";
import type { Workspace } from "./workspace.js";

/** Entries looked at between turns given back to the event loop (a huge directory must not block it). */
const ENTRIES_PER_TURN = 1000;

export interface WalkedFile {
  abs: string;
  /** Root-relative POSIX path. */
  rel: string;
}

export interface WalkOptions {
  signal?: AbortSignal;
}

/**
 * Yields the files under `startAbs` (a directory inside the root, already checked). When the start
 * directory is itself ignored or skipped, the caller asked for it explicitly: it is walked, and only
 * the rules found inside it apply.
 */
export async function* walkFiles(
  ws: Workspace,
  startAbs: string,
  options: WalkOptions = {},
): AsyncGenerator<WalkedFile> {
  const startRel = ws.relative(startAbs);
  let stack = await IgnoreStack.forDirectory(ws.root, startRel);
  if (startRel !== "." && (isSkippedPath(startRel) || stack.ignores(startRel, true))) {
    stack = await IgnoreStack.empty().enter(ws.root, startRel);
  }
  yield* walkDirectory(ws, startAbs, stack, options);
}

async function* walkDirectory(
  ws: Workspace,
  dirAbs: string,
  stack: IgnoreStack,
  options: WalkOptions,
): AsyncGenerator<WalkedFile> {
  if (options.signal?.aborted) return;
  let entries: Dirent[];
  try {
    entries = await readdir(dirAbs, { withFileTypes: true });
  } catch {
    return; // unreadable directories are skipped, like `rg` does
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const [index, entry] of entries.entries()) {
    if (index > 0 && index % ENTRIES_PER_TURN === 0) await nextTurn();
    if (options.signal?.aborted) return;
    const abs = path.join(dirAbs, entry.name);
    const rel = ws.relative(abs);
    if (entry.isDirectory()) {
      if (ALWAYS_SKIPPED.has(entry.name) || stack.ignores(rel, true)) continue;
      yield* walkDirectory(ws, abs, await stack.enter(ws.root, rel), options);
    } else if (entry.isFile()) {
      if (!stack.ignores(rel, false) && !ws.hidden(abs)) yield { abs, rel };
    } else if (entry.isSymbolicLink()) {
      if (stack.ignores(rel, false) || ws.hidden(abs) || !(await ws.contains(abs))) continue;
      try {
        if ((await stat(abs)).isFile()) yield { abs, rel };
      } catch {
        // dangling link
      }
    }
  }
}

function isSkippedPath(rel: string): boolean {
  return rel.split("/").some((part) => ALWAYS_SKIPPED.has(part));
}
