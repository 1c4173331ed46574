// The build's sweep of unreferenced chunks (scripts/prune-chunks.mjs): a chunk stays an hour after
// the first build that left it out, however old its file, so a `tern serve` started from an
// earlier build can still import it; the clock is injected.
import { mkdirSync, readdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a build script in plain JavaScript, without types
import { pruneChunks, UNREFERENCED_FILE, UNREFERENCED_GRACE_MS } from "../scripts/prune-chunks.mjs";
import { tempDir } from "./support/tern.js";

const HOUR = UNREFERENCED_GRACE_MS as number;

function chunks(...names: string[]): string {
  const dir = join(tempDir(), "chunks");
  mkdirSync(dir, { recursive: true });
  for (const name of names) {
    writeFileSync(join(dir, name), "module.exports = {};\n");
    // Last written by a build a day ago.
    utimesSync(join(dir, name), new Date(Date.now() - 24 * HOUR), new Date(Date.now() - 24 * HOUR));
  }
  return dir;
}

const left = (dir: string) =>
  readdirSync(dir)
    .filter((name) => name !== UNREFERENCED_FILE)
    .sort();

describe("pruning the chunks no build references", () => {
  it("keeps a day-old chunk for an hour after the build that first left it out, then removes it", () => {
    const dir = chunks("kept.js", "old.js", "old.js.v8cache");
    const written = new Set([join(dir, "kept.js")]);
    const start = Date.now();
    pruneChunks(dir, written, { now: start });
    expect(left(dir)).toEqual(["kept.js", "old.js", "old.js.v8cache"]);
    pruneChunks(dir, written, { now: start + HOUR - 1 });
    expect(left(dir)).toEqual(["kept.js", "old.js", "old.js.v8cache"]);
    pruneChunks(dir, written, { now: start + HOUR + 1 });
    expect(left(dir)).toEqual(["kept.js"]);
  });

  it("a chunk referenced again starts a new hour when it is next left out", () => {
    const dir = chunks("back.js");
    const start = Date.now();
    pruneChunks(dir, new Set(), { now: start });
    pruneChunks(dir, new Set([join(dir, "back.js")]), { now: start + HOUR / 2 });
    pruneChunks(dir, new Set(), { now: start + HOUR + 1 });
    expect(left(dir)).toEqual(["back.js"]);
    pruneChunks(dir, new Set(), { now: start + 2 * HOUR + 2 });
    expect(left(dir)).toEqual([]);
  });

  it("a damaged record starts every unreferenced chunk's hour again rather than removing it", () => {
    const dir = chunks("a.js");
    writeFileSync(join(dir, UNREFERENCED_FILE), "{ not json");
    pruneChunks(dir, new Set(), { now: Date.now() });
    expect(left(dir)).toEqual(["a.js"]);
  });
});
