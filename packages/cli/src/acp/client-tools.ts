// The editor as the place where files are read and written and commands run: a ToolProvider
// (runtime/coding-agent.ts) that, for what the client offered in `initialize`, replaces tern's
// `read` (fs/read_text_file: the editor's buffer, unsaved changes included), `write`
// (fs/write_text_file: the editor sees and can undo the change) and `bash` (terminal/create: the
// command runs in the editor's terminal, which it shows). Each keeps the original's name, kind and
// parameters, so hooks, the permission policy and checkpoints judge it exactly as before, and each
// resolves its path through the tool's own workspace first: a path outside the root (or through a
// symlink out of it) is refused here, before the editor is asked anything.
import type { AgentContext, ClientCapabilities } from "@agentclientprotocol/sdk";
import type { AgentToolResult } from "@tern/agent";
import { type AnyBuiltinTool, BASH_DEFAULT_TIMEOUT_MS, BASH_OUTPUT_BYTES, type Workspace } from "@tern/tools";
import type { ToolProvider } from "../runtime/coding-agent.js";

export interface ClientToolsOptions {
  client: AgentContext;
  capabilities: ClientCapabilities;
  sessionId: () => string;
}

// The editor's terminal keeps tern's bash tool's limits, so a command behaves the same in both.
const DEFAULT_TIMEOUT_SECONDS = BASH_DEFAULT_TIMEOUT_MS / 1000;
const OUTPUT_BYTE_LIMIT = BASH_OUTPUT_BYTES;

export function clientTools(options: ClientToolsOptions): ToolProvider {
  const { fs, terminal } = options.capabilities;
  const replace: Record<string, (tool: AnyBuiltinTool, ws: Workspace) => AnyBuiltinTool["execute"]> = {
    ...(fs?.readTextFile ? { read: (_tool, ws) => readThroughClient(ws, options) } : {}),
    ...(fs?.writeTextFile ? { write: (_tool, ws) => writeThroughClient(ws, options) } : {}),
    ...(terminal ? { bash: (_tool, ws) => runInClientTerminal(ws, options) } : {}),
  };
  return (tools) =>
    tools.map((tool) => {
      const make = replace[tool.name];
      const ws = tool.workspace;
      if (!make || !ws) return tool;
      // The workspace stays a hidden property, as createTools sets it: the policy hides files through it.
      return Object.defineProperty({ ...tool, execute: make(tool, ws) }, "workspace", {
        value: ws,
        enumerable: false,
      });
    });
}

type Result = AgentToolResult<unknown>;

function failed(text: string): Result {
  return { content: text, isError: true };
}

function readThroughClient(ws: Workspace, options: ClientToolsOptions): AnyBuiltinTool["execute"] {
  return async (args: { path: string; offset?: number; limit?: number }): Promise<Result> => {
    const resolved = await ws.resolve(args.path);
    if (!resolved.ok) return failed(resolved.error);
    try {
      const { content } = await options.client.request("fs/read_text_file", {
        sessionId: options.sessionId(),
        path: resolved.abs,
        ...(args.offset !== undefined ? { line: args.offset } : {}),
        ...(args.limit !== undefined ? { limit: args.limit } : {}),
      });
      const first = args.offset ?? 1;
      const lines = content === "" ? [] : content.replace(/\n$/, "").split("\n");
      if (lines.length === 0)
        return { content: `${resolved.rel} is empty.`, details: { path: resolved.rel } };
      const numbered = lines.map((line, i) => `${String(first + i).padStart(6)}\t${line}`).join("\n");
      return {
        content: numbered,
        details: { path: resolved.rel, startLine: first, endLine: first + lines.length - 1 },
      };
    } catch (error) {
      return failed(`${resolved.rel}: the editor could not read it: ${(error as Error).message}`);
    }
  };
}

function writeThroughClient(ws: Workspace, options: ClientToolsOptions): AnyBuiltinTool["execute"] {
  return async (args: { path: string; content: string }): Promise<Result> => {
    const resolved = await ws.resolve(args.path);
    if (!resolved.ok) return failed(resolved.error);
    try {
      await options.client.request("fs/write_text_file", {
        sessionId: options.sessionId(),
        path: resolved.abs,
        content: args.content,
      });
      const bytes = Buffer.byteLength(args.content);
      return {
        content: `${resolved.exists ? "Overwrote" : "Created"} ${resolved.rel} (${bytes} bytes).`,
        details: { path: resolved.rel, bytes, created: !resolved.exists },
      };
    } catch (error) {
      return failed(`${resolved.rel}: the editor could not write it: ${(error as Error).message}`);
    }
  };
}

function runInClientTerminal(ws: Workspace, options: ClientToolsOptions): AnyBuiltinTool["execute"] {
  return async (
    args: { command: string; cwd?: string; timeout?: number },
    { signal }: { signal: AbortSignal },
  ): Promise<Result> => {
    const resolved = await ws.resolve(args.cwd ?? ".");
    if (!resolved.ok) return failed(resolved.error);
    let terminal: Awaited<ReturnType<AgentContext["createTerminal"]>>;
    try {
      terminal = await options.client.createTerminal({
        sessionId: options.sessionId(),
        // The shell of tern's own `bash` tool: the model writes bash, which /bin/sh (dash) may not run.
        command: "/bin/bash",
        args: ["-c", args.command],
        cwd: resolved.abs,
        outputByteLimit: OUTPUT_BYTE_LIMIT,
      });
    } catch (error) {
      return failed(`the editor could not start the command: ${(error as Error).message}`);
    }
    let stopped: "aborted" | "timeout" | undefined;
    const kill = (why: "aborted" | "timeout") => {
      stopped ??= why;
      terminal.kill().catch(() => {});
    };
    const onAbort = () => kill("aborted");
    signal.addEventListener("abort", onAbort, { once: true });
    const timer = setTimeout(() => kill("timeout"), (args.timeout ?? DEFAULT_TIMEOUT_SECONDS) * 1000);
    try {
      const exit = await terminal.waitForExit();
      const { output, truncated } = await terminal.currentOutput();
      const status = exit.exitCode ?? null;
      const tail = truncated ? "\n[output truncated by the editor]" : "";
      const text = `${output}${tail}`.trim() || "(no output)";
      if (stopped === "aborted") return failed(`The command was aborted.\n${text}`);
      if (stopped === "timeout")
        return failed(`The command timed out after ${args.timeout ?? DEFAULT_TIMEOUT_SECONDS}s.\n${text}`);
      if (status !== 0) return failed(`Exit ${status ?? `signal ${exit.signal ?? "?"}`}.\n${text}`);
      return { content: text, details: { exitCode: 0, terminalId: terminal.id } };
    } catch (error) {
      return failed(`the editor's terminal failed: ${(error as Error).message}`);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      await terminal.release().catch(() => {});
    }
  };
}
