// The build's training run: `tern demo --fast` once, with TERN_TRAIN_CODE_CACHES=1, so every chunk
// the demo loads gets its code cache again as the demo exits (src/code-cache.ts), now holding each
// function the run compiled and not only what V8 compiles without running the file. A later start
// then compiles almost nothing lazily: `tern run`'s first request ~15 ms sooner, `run --help` ~13 ms
// less CPU. The demo is offline and scripted, in a temporary directory of its own; if it fails,
// the compile-only caches the build wrote stay, and the reason is returned.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Ceiling for a hung demo only; it takes about a second. */
const TRAINING_CEILING_MS = 120_000;

/** Runs the training demo with the bundle at `ternJs`; undefined when it ran, else why not. */
export function trainCodeCaches(ternJs) {
  const dir = mkdtempSync(join(tmpdir(), "tern-train-"));
  try {
    const result = spawnSync(process.execPath, [ternJs, "demo", "--fast"], {
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: dir,
        TMPDIR: dir,
        TERN_HOME: join(dir, "home"),
        TERN_TRAIN_CODE_CACHES: "1",
        NO_COLOR: "1",
      },
      encoding: "utf8",
      timeout: TRAINING_CEILING_MS,
    });
    if (result.status === 0) return undefined;
    return `the training demo ${result.error ? result.error.message : `exited ${result.status ?? result.signal}`}: ${(result.stderr ?? "").trim().split("\n").at(-1) ?? ""}`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
