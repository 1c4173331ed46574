// Runs a program in its own process group so that everything it starts (pipelines, background
// jobs, grandchildren, a bubblewrap sandbox and its PID namespace) can be killed at once.

import { type ChildProcess, spawn } from "node:child_process";

export interface GroupRun {
  child: ChildProcess;
  /** SIGKILLs the whole group; safe to call any number of times. */
  kill: () => void;
}

export function spawnGroup(
  program: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  /** "pipe" to write to the program's stdin (command hooks get their event there). */
  stdin: "ignore" | "pipe" = "ignore",
): GroupRun {
  const child = spawn(program, args, {
    cwd,
    env,
    // detached makes the child a process-group leader (setsid), so -pid names its whole group.
    detached: true,
    stdio: [stdin, "pipe", "pipe"],
  });
  const kill = () => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // ESRCH: the group is already gone.
    }
  };
  return { child, kill };
}
