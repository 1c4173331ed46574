// What a rewind says on the terminal: files in path order. The plan's lists come in path order
// (planRewind, checkpoints.test.ts); a forced rewind merges two of them, still in path order.
import { describe, expect, it } from "vitest";
import { rewindLines } from "../src/render/rewind-lines.js";
import { createStyle } from "../src/render/style.js";

const file = (path: string, created = false) => ({
  path,
  target: created ? { kind: "absent" as const } : { kind: "file" as const, hash: "h", size: 1, mode: 0o644 },
  current: { kind: "file" as const, hash: "g", size: 1, mode: 0o644 },
});

const outcome = (refused: boolean) => ({
  turn: { number: 2, entryId: "e", text: "change the files" },
  plan: {
    restore: [file("/w/b.txt", true), file("/w/a.txt")],
    conflicts: refused ? [file("/w/z.txt"), file("/w/c.txt")] : [],
    unrestorable: [],
    untracked: [],
    skippedRecords: 0,
  },
  restored: refused ? [] : ["/w/b.txt", "/w/a.txt"],
  failed: [],
  refused,
  conversation: !refused,
});

describe("rewind lines", () => {
  it("name the restored files by path, in path order, merged lists included", () => {
    const [code] = rewindLines(outcome(false), "/w", createStyle(false));
    expect(code).toBe(
      'code: restored 2 files to before turn 2 ("change the files"): a.txt, b.txt (deleted: it was created since)',
    );
  });
});
