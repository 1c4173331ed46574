// `tern` on a real pseudo-terminal (tmux), mostly `tern chat`: `terminalIt` reports a test as
// skipped where tmux is missing, and each terminal started here is killed after its test (before
// the scripted model closes, so tern never sees its model vanish mid-test).
import { afterEach, it } from "vitest";
import "./scripted-model.js";
import { TERN_JS, tempDir } from "./tern.js";
import { Tmux, tmuxAvailable } from "./tmux.js";

/** `it`, skipped with a visible reason where tmux is not installed. */
export const terminalIt = it.skipIf(!tmuxAvailable);

const started: Tmux[] = [];

// Registered after the scripted model's hook, so it runs first (vitest runs afterEach as a stack).
afterEach(() => {
  for (const tmux of started.splice(0)) tmux.kill();
});

/** Starts `tern ARGS` with `env` in `cwd` on a fresh terminal; killed after the test. */
export function startTernOnTerminal(args: string[], env: NodeJS.ProcessEnv, cwd: string): Tmux {
  const tmux = new Tmux(tempDir());
  started.push(tmux);
  tmux.start([process.execPath, TERN_JS, ...args], env, cwd);
  return tmux;
}

/** Starts `tern chat ARGS` on a fresh terminal, as startTernOnTerminal. */
export function startChat(args: string[], env: NodeJS.ProcessEnv, cwd: string): Tmux {
  return startTernOnTerminal(["chat", ...args], env, cwd);
}
