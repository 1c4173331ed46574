// Tab completion of an `@path` word in the chat input: the entries of the named directory that
// start with what was typed. One match completes (a directory gets its "/"); several complete
// their common prefix and are listed.

import { readdir } from "node:fs/promises";
import { resolveUserPath } from "../runtime/attach.js";

/** Candidates listed at most (a directory of thousands of files is not printed whole). */
export const MAX_COMPLETIONS_SHOWN = 30;

export interface Completion {
  /** The word's new text (without "@"), when it changes. */
  replacement?: string;
  /** All matches, when more than one. */
  candidates: string[];
}

export async function completePath(word: string, cwd: string): Promise<Completion> {
  const slash = word.lastIndexOf("/");
  const dirPart = slash >= 0 ? word.slice(0, slash + 1) : "";
  const prefix = word.slice(slash + 1);
  let entries: { name: string; dir: boolean }[];
  try {
    const listed = await readdir(resolveUserPath(cwd, dirPart || "."), { withFileTypes: true });
    entries = listed.map((entry) => ({ name: entry.name, dir: entry.isDirectory() }));
  } catch {
    return { candidates: [] };
  }
  const matches = entries
    .filter(
      (entry) => entry.name.startsWith(prefix) && (prefix.startsWith(".") || !entry.name.startsWith(".")),
    )
    .sort((a, b) => (a.name < b.name ? -1 : 1));
  if (matches.length === 0) return { candidates: [] };
  if (matches.length === 1) {
    const only = matches[0]!;
    return { replacement: `${dirPart}${only.name}${only.dir ? "/" : ""}`, candidates: [] };
  }
  const common = matches.map((entry) => entry.name).reduce(commonPrefix);
  const names = matches.map((entry) => `${entry.name}${entry.dir ? "/" : ""}`);
  return {
    ...(common.length > prefix.length ? { replacement: `${dirPart}${common}` } : {}),
    candidates: names,
  };
}

function commonPrefix(a: string, b: string): string {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return a.slice(0, i);
}
