// `tern mcp ls|approve|login|logout`: the MCP servers of a workspace. `ls` starts them (the
// approved ones), waits for them like a run would, and shows each one's state and tools (--json
// for scripts); project servers nobody approved are listed, not started. `approve` says yes to a
// project's servers once, for runs without a terminal to ask (`run` in a pipe, `serve`).
import { resolve } from "node:path";
import {
  DEFAULT_STARTUP_TIMEOUT_MS,
  FileApprovalStore,
  loginMcpServer,
  logoutMcpServer,
  McpManager,
  type McpServerStatus,
  pendingApprovals,
} from "@tern/mcp";
import { type OptionSpecs, type OptionValues, parseCommandArgs, stringOption } from "../cli/args.js";
import { CliError, type ExitCode, UsageError } from "../cli/errors.js";
import type { Io } from "../cli/io.js";
import { loadHome } from "../config/home.js";
import { resolveMcpSettings } from "../config/mcp-settings.js";
import { checkDirectory } from "../config/settings.js";
import { helpFor, wantsHelp } from "../help.js";
import { mcpStatusLines } from "../render/mcp-status.js";
import { createStyle } from "../render/style.js";
import { loadWorkspaceMcp, mcpOAuth, startableConfigs, startupOptions } from "../runtime/mcp.js";
import { describeMcpServer } from "../runtime/mcp-ask.js";

const WORKSPACE_OPTIONS: OptionSpecs = {
  cwd: { type: "string", short: "C" },
  "mcp-config": { type: "string", multiple: true },
  "mcp-sandbox": { type: "boolean" },
  "allow-net": { type: "boolean" },
};

/** The workspace, its MCP configuration and its approval store. */
async function workspace(values: OptionValues, io: Io) {
  const cwdFlag = stringOption(values, "cwd");
  const cwd = resolve(io.cwd, cwdFlag ?? ".");
  if (cwdFlag !== undefined) checkDirectory(cwd, "--cwd");
  const { home } = loadHome(io);
  const onSecret = (value: string) => io.redactor?.add([value]);
  const settings = resolveMcpSettings(values, io.cwd);
  const config = await loadWorkspaceMcp(settings, home, cwd, io.env);
  const store = new FileApprovalStore({ home });
  const sandbox = { allowNet: values["allow-net"] === true, hide: [home] };
  return {
    cwd,
    oauth: mcpOAuth(home, onSecret),
    settings,
    sandbox,
    config,
    store,
    pending: await pendingApprovals(config.servers, cwd, store),
  };
}

export async function list(argv: string[], io: Io): Promise<ExitCode> {
  const { values } = parseCommandArgs("mcp ls", argv, { ...WORKSPACE_OPTIONS, json: { type: "boolean" } }, 0);
  if (wantsHelp(values, io, helpFor("mcp"))) return 0;
  const { cwd, settings, sandbox, config, pending, oauth } = await workspace(values, io);
  const waiting = new Set(pending.map((entry) => entry.name));
  const startable = config.servers.filter((entry) => !waiting.has(entry.name));
  // Waits for every server to be ready or failed, up to the startup ceiling (MCP_TIMEOUT): only a
  // server still not up then is reported as starting, with the ceiling it missed.
  const waitedMs = startupOptions(io.env).startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS;
  const manager = new McpManager(await startableConfigs(startable, cwd, settings, sandbox), {
    startupTimeoutMs: waitedMs,
    oauth,
  });
  let statuses: McpServerStatus[];
  try {
    statuses = startable.length > 0 ? await manager.waitForStartup() : [];
  } finally {
    await manager.close();
  }
  const rows = config.servers.map((entry) => {
    const status = statuses.find((s) => s.name === entry.name);
    return {
      name: entry.name,
      scope: entry.scope,
      file: entry.file,
      target: describeMcpServer(entry.config),
      state: waiting.has(entry.name) ? ("not approved" as const) : (status?.state ?? "idle"),
      ...(status?.transport ? { transport: status.transport } : {}),
      ...(status?.protocolVersion ? { protocolVersion: status.protocolVersion } : {}),
      ...(status?.error ? { error: status.error } : {}),
      tools: status?.tools ?? [],
    };
  });
  if (values.json === true) {
    io.stdout.write(`${JSON.stringify({ cwd, servers: rows }, null, 2)}\n`);
    return 0;
  }
  if (rows.length === 0) {
    io.stdout.write(`no MCP servers configured (${cwd}/.mcp.json, $TERN_HOME/mcp.json, --mcp-config)\n`);
    return 0;
  }
  const style = createStyle(false);
  for (const row of rows) {
    for (const line of mcpStatusLines([{ ...row, waitedMs }], style)) io.stdout.write(`${line}\n`);
    if (row.state === "not approved")
      io.stdout.write(`  approve with: tern mcp approve ${row.name}${io.cwd === cwd ? "" : ` -C ${cwd}`}\n`);
  }
  return 0;
}

export async function approve(argv: string[], io: Io): Promise<ExitCode> {
  const { values, positionals } = parseCommandArgs("mcp approve", argv, {
    ...WORKSPACE_OPTIONS,
    all: { type: "boolean" },
  });
  if (wantsHelp(values, io, helpFor("mcp"))) return 0;
  const { cwd, config, store, pending } = await workspace(values, io);
  const project = config.servers.filter((entry) => entry.scope === "project");
  if (positionals.length === 0 && values.all !== true)
    throw new UsageError(
      `name the servers to approve, or pass --all; project servers here: ${project.map((e) => e.name).join(", ") || "none"}`,
    );
  const names = values.all === true ? project.map((entry) => entry.name) : positionals;
  for (const name of names) {
    const entry = project.find((e) => e.name === name);
    if (!entry)
      throw new UsageError(
        `no project MCP server "${name}" in ${cwd}/.mcp.json (project servers: ${project.map((e) => e.name).join(", ") || "none"})`,
      );
    const already = !pending.some((e) => e.name === name);
    // A corrupt approvals file is refused, not overwritten: say which file.
    if (!already)
      await store.approve(cwd, entry.name, entry.config).catch((error: Error) => {
        throw new CliError(error.message);
      });
    io.stdout.write(
      `${already ? "already approved" : "approved"}: ${name}: ${describeMcpServer(entry.config)}\n`,
    );
  }
  return 0;
}

/** `login NAME`: the OAuth flow through a loopback redirect; `logout NAME` forgets the tokens. */
export async function oauth(sub: "login" | "logout", argv: string[], io: Io): Promise<ExitCode> {
  const { values, positionals } = parseCommandArgs(`mcp ${sub}`, argv, WORKSPACE_OPTIONS, 1);
  if (wantsHelp(values, io, helpFor("mcp"))) return 0;
  const [name] = positionals;
  if (!name) throw new UsageError(`name the server: tern mcp ${sub} NAME`);
  const { config, oauth } = await workspace(values, io);
  const entry = config.servers.find((e) => e.name === name);
  if (!entry)
    throw new UsageError(
      `no MCP server "${name}" (servers: ${config.servers.map((e) => e.name).join(", ") || "none"})`,
    );
  if (entry.config.type === "stdio")
    throw new UsageError(
      `MCP server "${name}" runs locally (${entry.config.command}); OAuth is for remote servers`,
    );
  if (sub === "logout") {
    const had = await logoutMcpServer(name, entry.config, oauth);
    io.stdout.write(had ? `logged out: ${name}\n` : `not logged in: ${name}\n`);
    return 0;
  }
  try {
    await loginMcpServer(name, entry.config, {
      ...oauth,
      show: (url) =>
        io.stdout.write(`Open this URL to log in to ${name}:\n  ${url.href}\nwaiting for the browser...\n`),
    });
  } catch (error) {
    throw new CliError(`login to "${name}" failed: ${(error as Error)?.message ?? String(error)}`);
  }
  io.stdout.write(`logged in: ${name}\n`);
  return 0;
}
