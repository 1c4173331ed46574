import { stat } from "node:fs/promises";
import { z } from "zod";
import { HeadTailBuffer } from "../output-buffer.js";
import { spawnGroup } from "../process-group.js";
import { createSandbox } from "../sandbox/sandbox.js";
import { formatBytes } from "../text.js";
import type { BashDetails, BashOptions, BuiltinTool, SandboxOptions } from "../types.js";
import type { Workspace } from "../workspace.js";
import { fsErrorText, toolError } from "./result.js";

// How long to wait for the output pipes to close after the shell exited (a daemon that escaped
// the process group can hold them open forever).
const DRAIN_MS = 2000;
const UPDATE_EVERY_MS = 500;
/** A command's time limit when the call names none (options.defaultTimeoutMs overrides it). */
export const BASH_DEFAULT_TIMEOUT_MS = 120_000;
/** The bytes of a command's output the model gets (options.maxOutputBytes overrides it). */
export const BASH_OUTPUT_BYTES = 30_000;

export function bashTool(ws: Workspace, options: BashOptions = {}, sandboxOptions: SandboxOptions = {}) {
  const defaultTimeoutMs = options.defaultTimeoutMs ?? BASH_DEFAULT_TIMEOUT_MS;
  const maxTimeoutMs = Math.max(options.maxTimeoutMs ?? 600_000, defaultTimeoutMs);
  const maxOutputBytes = options.maxOutputBytes ?? BASH_OUTPUT_BYTES;
  const shell = options.shell ?? "/bin/bash";
  const startTimer = options.startTimer ?? realTimer;
  const sandbox = createSandbox(sandboxOptions);

  const parameters = z.object({
    command: z.string().min(1).describe("The bash command line to run."),
    cwd: z.string().optional().describe('Working directory, relative to the workspace root. Default ".".'),
    timeout: z
      .number()
      .positive()
      .max(maxTimeoutMs / 1000)
      .optional()
      .describe(`Seconds before the command is killed. Default ${defaultTimeoutMs / 1000}.`),
  });

  const tool: BuiltinTool<z.infer<typeof parameters>, BashDetails> = {
    name: "bash",
    label: "Run command",
    kind: "exec",
    description:
      "Run a command with /bin/bash -c in the workspace (or a subdirectory of it) and return its combined stdout and stderr and exit code. " +
      "There is no terminal and no stdin: do not start interactive programs. Background jobs are stopped when the command ends. " +
      `Output over ${formatBytes(maxOutputBytes)} keeps its start and end. A non-zero exit code is reported as an error with the output.` +
      (sandbox.profile === "sandbox"
        ? ` Commands run in a sandbox: only the workspace and a private /tmp are writable, ${networkWords(sandboxOptions)}, and API keys are not in the environment.`
        : ""),
    parameters,
    async execute({ command, cwd = ".", timeout }, { signal, onUpdate }) {
      const resolved = await ws.resolve(cwd);
      if (!resolved.ok) return toolError(resolved.error);
      try {
        if (!(await stat(resolved.abs)).isDirectory())
          return toolError(`${resolved.rel} is not a directory.`);
      } catch (error) {
        return toolError(fsErrorText(error, resolved.rel));
      }
      const details: BashDetails = {
        command,
        sandbox: sandbox.profile,
        cwd: resolved.rel,
        exitCode: null,
        signal: null,
        timedOut: false,
        aborted: false,
        truncated: false,
        outputBytes: 0,
        durationMs: 0,
      };
      const launch = await sandbox.launch({
        shell,
        command,
        root: ws.root,
        cwd: resolved.abs,
        ...(options.env ? { env: options.env } : {}),
      });
      if (signal.aborted) {
        details.aborted = true;
        if (launch.ok) await launch.proxy?.close();
        return toolError("The command was not started: the run was aborted.", details);
      }
      if (!launch.ok) return toolError(launch.error, details);

      const timeoutMs = timeout !== undefined ? timeout * 1000 : defaultTimeoutMs;
      const headBytes = Math.floor(maxOutputBytes / 3);
      const output = new HeadTailBuffer(headBytes, maxOutputBytes - headBytes);
      const started = Date.now();
      const { child, kill } = spawnGroup(launch.program, launch.args, resolved.abs, launch.env);

      const finished = new Promise<{ error?: Error }>((resolve) => {
        let exited = false;
        let drainTimer: ReturnType<typeof setTimeout> | undefined;
        child.stdout?.on("data", (chunk: Buffer) => output.push(chunk));
        child.stderr?.on("data", (chunk: Buffer) => output.push(chunk));
        child.on("error", (error) => resolve({ error }));
        child.on("exit", (code, sig) => {
          exited = true;
          details.exitCode = code;
          details.signal = sig;
          // Stop what the command left running in the background, then let the pipes drain.
          kill();
          drainTimer = setTimeout(() => {
            child.stdout?.destroy();
            child.stderr?.destroy();
            resolve({});
          }, DRAIN_MS);
        });
        child.on("close", (code, sig) => {
          clearTimeout(drainTimer);
          if (!exited) {
            details.exitCode = code;
            details.signal = sig;
          }
          resolve({});
        });
      });

      const cancelTimer = startTimer(timeoutMs, () => {
        details.timedOut = true;
        kill();
      });
      const onAbort = () => {
        details.aborted = true;
        kill();
      };
      signal.addEventListener("abort", onAbort, { once: true });
      let reported = 0;
      const ticker = setInterval(() => {
        if (output.total === reported) return;
        reported = output.total;
        void onUpdate({
          content: output.recent(4000),
          details: { ...details, outputBytes: output.total },
        }).catch(() => {});
      }, UPDATE_EVERY_MS);

      const { error } = await finished;
      cancelTimer();
      clearInterval(ticker);
      signal.removeEventListener("abort", onAbort);
      // The command has ended: its proxy (with a host allow-list) goes, and says what it refused.
      await launch.proxy?.close();
      details.durationMs = Date.now() - started;
      details.outputBytes = output.total;
      details.truncated = output.truncated;
      if (error) return toolError(`Could not start ${launch.program}: ${error.message}`, details);

      const body = output.total === 0 ? "(no output)" : output.text().replace(/\n$/, "");
      let status: string;
      if (details.aborted) status = "The command was aborted; its process group was killed.";
      else if (details.timedOut) status = `The command timed out after ${timeoutMs / 1000} s and was killed.`;
      else if (details.exitCode === null) status = `The command was killed by signal ${details.signal}.`;
      else status = `Exit code: ${details.exitCode}`;
      const isError = details.aborted || details.timedOut || details.exitCode !== 0;
      const refused = (launch.proxy?.refusals() ?? []).map(
        (refusal) =>
          `The sandbox refused a network connection to ${refusal.host}:${refusal.port}: ${refusal.reason}.`,
      );
      return { content: [`${body}\n\n${status}`, ...refused].join("\n"), details, isError };
    },
  };
  return tool;
}

/** The sandbox's network, in the words of the tool's description. */
function networkWords(options: SandboxOptions): string {
  if (options.allowNet) return "the network is reachable";
  if ((options.allowHosts?.length ?? 0) + (options.denyHosts?.length ?? 0) === 0)
    return "there is no network";
  return (
    "the network is reachable only through a proxy (HTTP_PROXY, HTTPS_PROXY and ALL_PROXY are set) " +
    `that allows these hosts: ${options.allowHosts?.join(", ") || "none"}`
  );
}

/** A command's time limit on the real clock. */
function realTimer(ms: number, expire: () => void): () => void {
  const timer = setTimeout(expire, ms);
  return () => clearTimeout(timer);
}
