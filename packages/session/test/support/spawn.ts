// Runs a TypeScript file in a real child process (`node --import tsx`).
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

export function spawnTs(
  file: string,
  args: string[] = [],
  env: NodeJS.ProcessEnv = process.env,
): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", file, ...args], {
    cwd: REPO_ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** Resolves with the first stdout line equal to `line`; rejects if the child exits first. */
export function waitForLine(child: ChildProcess, line: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let buffer = "";
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const onData = (chunk: Buffer) => {
      buffer += chunk.toString();
      if (buffer.split("\n").includes(line)) {
        child.stdout?.off("data", onData);
        resolve();
      }
    };
    child.stdout?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`child exited (${code}) before "${line}": ${stderr}`)));
  });
}

/** A pid that surely belongs to no live process: a child that already exited. */
export async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((resolve) => child.once("exit", resolve));
  return child.pid!;
}
