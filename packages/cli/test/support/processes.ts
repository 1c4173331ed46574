// Waiting on real processes in the end-to-end tests: whether a command is running, and polling
// until a condition holds. The ceiling only turns a hang into a clear failure.
import { execFileSync } from "node:child_process";

const POLL_MS = 50;

/** True while a process whose command line matches `pattern` is alive (pgrep -f). */
export function running(pattern: string): boolean {
  try {
    return execFileSync("pgrep", ["-f", pattern], { encoding: "utf8" }).trim() !== "";
  } catch {
    return false;
  }
}

/** Resolves once `check()` is true; rejects naming `what` after `ceilingMs`. */
export async function until(check: () => boolean, what: string, ceilingMs = 30_000): Promise<void> {
  const deadline = Date.now() + ceilingMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
