// Removes the chunks a build no longer references, but only an hour after they stopped being
// referenced: a `tern serve` started from the previous build still imports the chunks its
// tern-app.js names. The hour runs from the first build that left a chunk out, recorded in
// chunks/.unreferenced.json (name -> milliseconds), never from the chunk's own mtime: that is the
// last build that wrote it, so after a day without building every old chunk would go at once.
import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** How long an unreferenced chunk stays for processes that loaded an older build. */
export const UNREFERENCED_GRACE_MS = 60 * 60 * 1000;
export const UNREFERENCED_FILE = ".unreferenced.json";

/** Prunes `dir` after a build that wrote the paths in `written`. */
export function pruneChunks(dir, written, { now = Date.now() } = {}) {
  const record = join(dir, UNREFERENCED_FILE);
  const since = unreferencedSince(record);
  const still = {};
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (name === UNREFERENCED_FILE || written.has(path) || name.endsWith(".tmp")) continue;
    const first = since[name] ?? now;
    if (now - first > UNREFERENCED_GRACE_MS) rmSync(path, { force: true });
    else still[name] = first;
  }
  const temp = `${record}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(still)}\n`);
  renameSync(temp, record);
}

/** The record, or nothing when it is missing or damaged (every unreferenced chunk then starts its hour now). */
function unreferencedSince(record) {
  try {
    const value = JSON.parse(readFileSync(record, "utf8"));
    if (typeof value !== "object" || value === null || Array.isArray(value)) return {};
    return Object.fromEntries(Object.entries(value).filter(([, ms]) => Number.isFinite(ms)));
  } catch {
    return {};
  }
}
