// The MCP servers of one workspace, for `run`, `chat` and the sessions of `serve`: reads
// $TERN_HOME/mcp.json, the project's .mcp.json and --mcp-config files, lets a project's servers
// start only once the user approved them (asked on a terminal; elsewhere they are skipped with a
// warning naming `tern mcp approve`), starts the rest lazily and in parallel, and says when one
// fails. A malformed configuration is a usage error (exit 2): a server that silently does not
// exist is worse than a clear stop, and --no-mcp runs without.
import { existsSync, realpathSync } from "node:fs";
import path from "node:path";
import type { AnyAgentTool, TurnPatch, TurnPreparation } from "@tern/agent";
import {
  FileApprovalStore,
  type LoadedMcpConfig,
  loadMcpConfig,
  type McpManager,
  type McpOAuthOptions,
  type McpServerConfig,
  type McpServerEntry,
  type McpServerState,
  OAuthStore,
  pendingApprovals,
} from "@tern/mcp";
import { createSandbox, type SandboxOptions } from "@tern/tools";
import { UsageError } from "../cli/errors.js";
import type { McpSettings } from "../config/mcp-settings.js";

/** Asks the user about project servers not approved yet; resolves with the names they allowed. */
export type McpApprover = (pending: McpServerEntry[], projectDir: string) => Promise<string[]>;

export interface OpenMcpOptions {
  settings: McpSettings | undefined;
  home: string;
  /** The workspace: the project whose .mcp.json is read and approved. */
  cwd: string;
  env: NodeJS.ProcessEnv;
  warn: (message: string) => void;
  /** Without it, unapproved project servers are skipped (with a warning). */
  approve?: McpApprover;
  /** How `bash` is confined; with --mcp-sandbox local servers run the same way. */
  sandbox?: SandboxOptions;
  /** Servers the host was handed (an ACP client's), after the configured ones. */
  extra?: McpServerEntry[];
  /** Told every OAuth token value the servers use, for the redactor. */
  onSecret?: (value: string) => void;
}

/** Reads and checks the configuration; a problem is a usage error naming its file. */
export async function loadWorkspaceMcp(
  settings: McpSettings,
  home: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<LoadedMcpConfig> {
  const config = await loadMcpConfig({ projectDir: cwd, home, files: settings.files, cwd, env });
  if (config.problems.length > 0) {
    const lines = config.problems.map(
      (problem) =>
        `  ${problem.file}${problem.server ? ` (server "${problem.server}")` : ""}: ${problem.message}`,
    );
    throw new UsageError(
      `MCP configuration is malformed:\n${lines.join("\n")}\nFix it, or run with --no-mcp to start no MCP server.`,
    );
  }
  return config;
}

/** The servers to start for `cwd`, or undefined when there are none (or --no-mcp). */
export async function openMcp(options: OpenMcpOptions): Promise<McpManager | undefined> {
  const { settings, home, cwd, env, warn } = options;
  if (!settings?.enabled) return undefined;
  const loaded = await loadWorkspaceMcp(settings, home, cwd, env);
  const config = { ...loaded, servers: [...loaded.servers, ...(options.extra ?? [])] };
  const store = new FileApprovalStore({ home });
  const pending = await pendingApprovals(config.servers, cwd, store);
  const allowed = new Set(pending.length > 0 && options.approve ? await options.approve(pending, cwd) : []);
  for (const entry of pending) {
    if (!allowed.has(entry.name)) warn(notApproved(entry, cwd, options.approve !== undefined));
    else await store.approve(cwd, entry.name, entry.config).catch((error: Error) => warn(error.message));
  }
  const skipped = new Set(pending.filter((entry) => !allowed.has(entry.name)).map((entry) => entry.name));
  const servers = config.servers.filter((entry) => !skipped.has(entry.name));
  if (servers.length === 0) return undefined;
  const { McpManager } = await import("./mcp-manager.js");
  const manager = new McpManager(await startableConfigs(servers, cwd, settings, options.sandbox), {
    ...startupOptions(env),
    oauth: mcpOAuth(home, options.onSecret),
  });
  reportFailures(manager, warn);
  manager.start();
  return manager;
}

/** The servers' configurations as they start: in the workspace, and confined under --mcp-sandbox. */
export async function startableConfigs(
  servers: readonly McpServerEntry[],
  cwd: string,
  settings: McpSettings,
  sandbox: SandboxOptions = {},
): Promise<Record<string, McpServerConfig>> {
  const configs = servers.map((entry) => inWorkspace(entry.config, cwd));
  const confined = settings.sandbox ? await confine(configs, cwd, sandbox) : configs;
  return Object.fromEntries(servers.map((entry, i) => [entry.name, confined[i]!]));
}

/**
 * MCP_TIMEOUT (milliseconds, as in Claude Code): how long a run waits for its servers before its
 * first turn; slower servers' tools join later.
 */
export function startupOptions(env: NodeJS.ProcessEnv): { startupTimeoutMs?: number } {
  const ms = Number(env.MCP_TIMEOUT);
  return Number.isInteger(ms) && ms > 0 ? { startupTimeoutMs: ms } : {};
}

/** OAuth credentials of remote servers (`tern mcp login`): $TERN_HOME/mcp-auth, tokens to `onSecret`. */
export function mcpOAuth(home: string, onSecret?: (value: string) => void): McpOAuthOptions {
  return { store: new OAuthStore(path.join(home, "mcp-auth")), ...(onSecret ? { onSecret } : {}) };
}

/** Why a project server did not start, and the one command that approves it. */
function notApproved(entry: McpServerEntry, cwd: string, asked: boolean): string {
  const why = asked ? "you did not approve it" : "it is not approved and there is no terminal to ask";
  return `MCP server "${entry.name}" from ${entry.file} was not started: ${why}. Project servers run commands with your privileges; to approve it run: tern mcp approve ${entry.name} -C ${cwd}`;
}

/** A local server with no `cwd` of its own runs in the workspace, like the agent's tools. */
function inWorkspace(config: McpServerConfig, cwd: string): McpServerConfig {
  return config.type === "stdio" && config.cwd === undefined ? { ...config, cwd } : config;
}

/**
 * --mcp-sandbox: each local server's command runs under bubblewrap like `bash` (the workspace the
 * only writable directory, tern's home hidden, no network unless --allow-net). Remote servers are
 * not processes of ours and stay as they are. A sandbox that cannot run here is a usage error:
 * asked-for confinement never silently falls away.
 */
async function confine(
  configs: McpServerConfig[],
  cwd: string,
  options: SandboxOptions,
): Promise<McpServerConfig[]> {
  const sandbox = createSandbox({ ...options, profile: "sandbox" });
  const root = realpathSync(cwd);
  return Promise.all(
    configs.map(async (config) => {
      if (config.type !== "stdio") return config;
      const launch = await sandbox.launch({
        shell: "/bin/sh",
        command: "",
        argv: [config.command, ...config.args],
        root,
        cwd: config.cwd ?? root,
        env: {},
        readOnly: programFiles([config.command, ...config.args]),
      });
      if (!launch.ok) throw new UsageError(`--mcp-sandbox: ${launch.error}`);
      const env = Object.entries(launch.env).filter(
        (pair): pair is [string, string] => pair[1] !== undefined,
      );
      return {
        ...config,
        command: launch.program,
        args: launch.args,
        env: { ...Object.fromEntries(env), ...config.env },
      };
    }),
  );
}

/**
 * The sandbox's /tmp is private, which would hide a server installed under /tmp (a checkout
 * there, `npx`'s cache): each absolute path on the command line that lies in /tmp is shown again,
 * read-only, from its top `node_modules` (so its dependencies resolve) or else its own directory.
 */
function programFiles(argv: readonly string[]): string[] {
  const shown = new Set<string>();
  for (const arg of argv) {
    if (!path.isAbsolute(arg) || !existsSync(arg)) continue;
    const real = realpathSync(arg);
    if (!real.startsWith("/tmp/")) continue;
    const parts = real.split(path.sep);
    const modules = parts.indexOf("node_modules");
    shown.add(modules > 0 ? parts.slice(0, modules + 1).join(path.sep) : path.dirname(real));
  }
  return [...shown];
}

/** One warning each time a server ends up failed (it does not come back without a retry). */
function reportFailures(manager: McpManager, warn: (message: string) => void): void {
  const last = new Map<string, McpServerState>();
  manager.onChange(() => {
    for (const server of manager.status()) {
      if (server.state === "failed" && last.get(server.name) !== "failed")
        warn(`MCP server "${server.name}" failed: ${server.error ?? "unknown error"}`);
      last.set(server.name, server.state);
    }
  });
}

/**
 * The `prepareNextTurn` of one agent: its first turn waits for the servers to come up (at most
 * the manager's startup ceiling, so a slow one never holds the run up for long), then every turn
 * gets the current MCP tools when they changed.
 */
export function mcpTurns(
  manager: McpManager,
  warn?: (message: string) => void,
): (turn: TurnPreparation) => Promise<TurnPatch | undefined> {
  const next = manager.turnPreparer();
  let started = false;
  return async (turn) => {
    if (!started) {
      started = true;
      const statuses = await manager.waitForStartup(turn.signal);
      for (const server of statuses.filter((s) => s.state === "starting"))
        warn?.(`MCP server "${server.name}" is still starting; its tools join the run when it is up`);
    }
    return next(turn);
  };
}

/** The MCP tools as they are now, for the permission policy's kind lookups. */
export function currentMcpTools(manager: McpManager | undefined): () => readonly AnyAgentTool[] {
  return () => (manager ? manager.tools() : []);
}
