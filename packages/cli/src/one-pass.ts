// Commands that read, print and exit (`tern sessions ls`, `tern usage`, …) run each function a
// handful of times, then the process ends. V8 still tiers the busiest functions up to TurboFan,
// compiling them on a background thread, and scavenges with helper threads: CPU spent for a
// process that is gone a few milliseconds later. Over 1,000 sessions, `sessions ls` took ~12%
// less CPU with both off (`npm run bench session-list`). main.ts switches them off for these
// commands before loading anything else; every command that runs the agent or serves keeps them.
// V8 checks a code cache against the flags it was made with, and the build makes them under the
// defaults, so these commands skip the chunks' caches (they gain nothing on the few small chunks
// such a command loads).

/** What main.ts hands V8 for a one-pass command. */
export const ONE_PASS_V8_FLAGS = "--no-opt --single-threaded-gc";

/** Subcommands of `tern sessions` that only read or copy files: `resume` runs the agent. */
const ONE_PASS_SESSIONS = new Set(["ls", "list", "show", "export", "fork", "rewind"]);

/** Whether `tern <argv>` reads, prints and exits. */
export function isOnePass(argv: readonly string[]): boolean {
  const [command, sub] = argv;
  if (command === "usage") return true;
  return command === "sessions" && sub !== undefined && ONE_PASS_SESSIONS.has(sub);
}
