// Runs a shell command in its own process group so that everything it starts (pipelines,
// background jobs, grandchildren) can be killed at once.

import { type ChildProcess, spawn } from "node:child_process";

export interface GroupRun {
  child: ChildProcess;
  /** SIGKILLs the whole group; safe to call any number of times. */
  kill: () => void;
}

export function spawnGroup(shell: string, command: string, cwd: string, env: NodeJS.ProcessEnv): GroupRun {
  const child = spawn(shell, ["-c", command], {
    cwd,
    env,
    // detached makes the child a process-group leader (setsid), so -pid names its whole group.
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
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
