// A hook that is a shell command (from settings files): the event goes to its stdin as JSON, it
// runs in the workspace under the same sandbox as `bash`, and its exit code and stdout answer
// (hook-answer.ts). Its process group is killed when the registry's timeout or the run's abort
// fires. PreToolUse command hooks fail closed (a broken guard denies the call); the other events
// fail open (the error is reported and the run goes on).
import { realpathSync } from "node:fs";
import type { Hook, HookEventName, HookIO } from "@tern/agent";
import { spawnGroup } from "../process-group.js";
import { createSandbox } from "../sandbox/sandbox.js";
import type { SandboxOptions } from "../types.js";
import { type HookProcessResult, hookOutput } from "./hook-answer.js";

/** How long a command hook may run when its settings name no timeout. */
export const DEFAULT_COMMAND_HOOK_TIMEOUT_MS = 60_000;
/** Bytes of stdout or stderr kept from a hook; an answer is a small JSON object. */
export const HOOK_OUTPUT_MAX_BYTES = 64 * 1024;
/** Names the project directory for the hook's command (as CLAUDE_PROJECT_DIR does for Claude Code's). */
export const HOOK_PROJECT_DIR_ENV = "TERN_PROJECT_DIR";

export interface CommandHookSpec {
  event: HookEventName;
  command: string;
  /** Tool-name globs for tool events (`bash`, `mcp__github__*`); default every tool. */
  matcher?: string | string[];
  /** Default DEFAULT_COMMAND_HOOK_TIMEOUT_MS. */
  timeoutMs?: number;
  /** Shown in errors; default the command. */
  name?: string;
}

export interface CommandHookOptions {
  /** The workspace: the hook's working directory and the only place it may write. */
  root: string;
  /** Where the settings that declared the hook live (default `root`): $TERN_PROJECT_DIR. */
  projectDir?: string;
  /** The same settings as `bash` (default: the sandbox profile). */
  sandbox?: SandboxOptions;
  /** Default /bin/bash. */
  shell?: string;
  /** The hook's environment (default: tern's own, scrubbed of keys like bash's). */
  env?: NodeJS.ProcessEnv;
}

/** A registry hook that runs `spec.command` for its event. */
export function commandHook(spec: CommandHookSpec, options: CommandHookOptions): Hook {
  const sandbox = createSandbox(options.sandbox);
  const root = realpathSync(options.root);
  const projectDir = options.projectDir === undefined ? root : realpathSync(options.projectDir);
  const event = spec.event;
  return {
    event,
    name: spec.name ?? spec.command,
    ...(spec.matcher !== undefined ? { matcher: spec.matcher } : {}),
    timeoutMs: spec.timeoutMs ?? DEFAULT_COMMAND_HOOK_TIMEOUT_MS,
    failClosed: event === "PreToolUse",
    handler: async (input: HookIO[typeof event]["input"], { signal }: { signal: AbortSignal }) => {
      const launch = await sandbox.launch({
        shell: options.shell ?? "/bin/bash",
        command: spec.command,
        root,
        cwd: root,
        // bash reads ~/.bashrc when its stdin is a socket (it guesses rshd), and Node's pipes are
        // socketpairs: a hook would run the user's shell startup (slow, and it may take locks).
        shellOptions: ["--norc"],
        // The settings' directory holds the hook's scripts: readable even under the private /tmp.
        ...(projectDir !== root ? { readOnly: [projectDir] } : {}),
        ...(options.env ? { env: options.env } : {}),
      });
      if (!launch.ok) throw new Error(launch.error);
      const stdin = JSON.stringify({ ...eventPayload(event, input), cwd: root });
      const result = await runProcess(
        launch.program,
        launch.args,
        root,
        { ...launch.env, [HOOK_PROJECT_DIR_ENV]: options.projectDir ?? root },
        stdin,
        signal,
      ).finally(() => launch.proxy?.close());
      return hookOutput(event, result, input);
    },
  } as Hook;
}

/** The event as the hook reads it: the library's fields, plus the names Claude Code's hooks use. */
function eventPayload(event: HookEventName, input: object): Record<string, unknown> {
  const fields = input as Record<string, unknown>;
  const aliases: Record<string, unknown> = { hook_event_name: event };
  if (typeof fields.toolName === "string") aliases.tool_name = fields.toolName;
  if (fields.args !== undefined) aliases.tool_input = fields.args;
  if (fields.result !== undefined) aliases.tool_response = fields.result;
  return { event, ...fields, ...aliases };
}

function runProcess(
  program: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  stdin: string,
  signal: AbortSignal,
): Promise<HookProcessResult> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Error("the hook was not started: the run was aborted"));
    const { child, kill } = spawnGroup(program, args, cwd, env, "pipe");
    const stdout = new Capped();
    const stderr = new Capped();
    child.stdout?.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk));
    // A hook that does not read its stdin closes the pipe early: that is no failure.
    child.stdin?.on("error", () => {});
    child.stdin?.end(stdin);
    const onAbort = () => kill();
    signal.addEventListener("abort", onAbort, { once: true });
    child.on("error", (error) => {
      signal.removeEventListener("abort", onAbort);
      reject(new Error(`could not start the hook: ${error.message}`));
    });
    // Once the hook exits, what it left in the background goes too, so its pipes close.
    child.on("exit", () => kill());
    child.on("close", (code, sig) => {
      signal.removeEventListener("abort", onAbort);
      if (stdout.overflow)
        return reject(new Error(`the hook printed more than ${HOOK_OUTPUT_MAX_BYTES} bytes`));
      resolve({ code, signal: sig, stdout: stdout.text(), stderr: stderr.text() });
    });
  });
}

class Capped {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  overflow = false;

  push(chunk: Buffer): void {
    if (this.size + chunk.length > HOOK_OUTPUT_MAX_BYTES) {
      this.overflow = true;
      chunk = chunk.subarray(0, Math.max(0, HOOK_OUTPUT_MAX_BYTES - this.size));
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
  }

  text(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }
}
