// What the loaders of prompt files (instructions, skills) share: a file they read into the model's
// context is text, read only up to a cap (a character split by the cut dropped), and a project's
// file may link within its tree, never out of it (a checked-out repository must not pull
// ~/.ssh/config into the prompt). A bad file is a reason in words, never an exception.

import { closeSync, fstatSync, openSync, readSync, realpathSync } from "node:fs";
import { isInside } from "./workspace.js";

export type TextHead =
  | { ok: true; text: string /** the file's size */; bytes: number /** bytes read */; loaded: number }
  | { ok: false; error: string };

/** At most `maxBytes` of the file at `path`, as UTF-8 text. */
export function readTextHead(path: string, maxBytes: number): TextHead {
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { ok: false, error: "not a regular file" };
    const buffer = Buffer.alloc(Math.min(stat.size, maxBytes));
    const loaded = readSync(fd, buffer, 0, buffer.length, 0);
    const text = decodeText(buffer.subarray(0, loaded), loaded < stat.size);
    if (text === undefined) return { ok: false, error: "binary, not text" };
    return { ok: true, text, bytes: stat.size, loaded };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** UTF-8 text, or undefined for binary (a NUL byte, or bytes that are not UTF-8). */
function decodeText(bytes: Buffer, cut: boolean): string | undefined {
  if (bytes.includes(0)) return undefined;
  // A cap can split a character: drop an incomplete sequence at the end.
  let end = bytes.length;
  if (cut) {
    let back = 0;
    while (back < 3 && end - back > 0 && (bytes[end - back - 1]! & 0xc0) === 0x80) back++;
    const lead = bytes[end - back - 1] ?? 0;
    const needed = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
    if (back + 1 < needed) end -= back + 1;
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(0, end));
  } catch {
    return undefined;
  }
}

/** True when `path` really lies inside `tree` (both resolved through symlinks). */
export function insideTree(path: string, tree: string): boolean {
  return isInside(realOr(tree), realOr(path));
}

function realOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
