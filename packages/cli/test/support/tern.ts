// Runs the real `tern` bundle, with TERN_HOME in a fresh temporary directory and none of the
// caller's keys or tern settings leaking in: a command to its end in this process (runTern), or a
// child process (spawnTern, runTernProcess) for what is about processes and long-lived servers.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { TERN_JS } from "./build.js";
import { runInProcess } from "./in-process.js";

export { ensureBuilt, TERN_JS } from "./build.js";

const created: string[] = [];

/** A fresh directory, removed after the test file that made it (this module registers the hook). */
export function tempDir(prefix = "tern-cli-test-"): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  created.push(dir);
  return dir;
}

/** Removes a directory a test learned about (the demo's project copy) with the others. */
export function removeLater(dir: string): void {
  created.push(dir);
}

afterAll(() => {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The environment of a tern child: the caller's minus keys and TERN_*, plus `extra`. */
export function ternEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith("TERN_") || key.endsWith("_API_KEY") || key === "FORCE_COLOR") continue;
    env[key] = value;
  }
  return { ...env, NO_COLOR: "1", ...extra };
}

export interface TernResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface TernProcess {
  child: ChildProcess;
  readonly stdout: string;
  readonly stderr: string;
  /** Resolves once stdout or stderr matches. */
  waitFor(pattern: RegExp, stream?: "stdout" | "stderr", timeoutMs?: number): Promise<void>;
  done: Promise<TernResult>;
}

/** Options of a tern child; `entry` runs another copy of the entry file than the built one. */
export interface TernOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  input?: string;
  entry?: string;
}

export function spawnTern(args: string[], options: TernOptions = {}): TernProcess {
  const child = spawn(process.execPath, [options.entry ?? TERN_JS, ...args], {
    env: options.env ?? ternEnv(),
    cwd: options.cwd ?? process.cwd(),
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  const waiters = new Set<() => void>();
  const check = () => {
    for (const waiter of [...waiters]) waiter();
  };
  child.stdout!.setEncoding("utf8").on("data", (text: string) => {
    stdout += text;
    check();
  });
  child.stderr!.setEncoding("utf8").on("data", (text: string) => {
    stderr += text;
    check();
  });
  if (options.input !== undefined) child.stdin!.end(options.input);
  else child.stdin!.end();
  const done = new Promise<TernResult>((resolve) => {
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return {
    child,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    waitFor(pattern, stream = "stderr", timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(test);
          reject(
            new Error(
              `timed out waiting for ${pattern} on ${stream}:\n${stream === "stdout" ? stdout : stderr}`,
            ),
          );
        }, timeoutMs);
        const test = () => {
          if (pattern.test(stream === "stdout" ? stdout : stderr)) {
            clearTimeout(timer);
            waiters.delete(test);
            resolve();
          }
        };
        waiters.add(test);
        test();
      });
    },
    done,
  };
}

/**
 * A tern command run to its end. In this process (support/in-process.ts) unless `entry` names
 * another entry file: a command's output and exit code are the same either way.
 */
export function runTern(args: string[], options: TernOptions = {}): Promise<TernResult> {
  if (options.entry !== undefined) return runTernProcess(args, options);
  return runInProcess(args, {
    env: options.env ?? ternEnv(),
    cwd: options.cwd ?? process.cwd(),
    ...(options.input !== undefined ? { input: options.input } : {}),
  });
}

/** A tern child process run to its end: for what is about the process (signals, stdio, exit). */
export function runTernProcess(args: string[], options: TernOptions = {}): Promise<TernResult> {
  return spawnTern(args, options).done;
}
