// The MCP servers of one agent: starts them lazily and in parallel, hands out their tools as
// AgentTools under unique names, reports their state, and tells the agent when the toolset
// changed (a server came up late, restarted, failed, or sent tools/list_changed) so the next turn
// can use the new list (`prepareNextTurn`).

import type { GetPromptResult, ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import type { AnyAgentTool, TurnPatch, TurnPreparation } from "@tern/agent";
import type { McpServerConfig } from "./config.js";
import {
  type ConnectionOptions,
  McpServerConnection,
  type McpServerState,
  McpUnavailableError,
} from "./connection.js";
import { assignToolNames } from "./names.js";
import type { McpPromptCommand } from "./prompts.js";
import { createMcpTool, type McpAgentTool, type McpToolOptions } from "./tool.js";

export interface McpManagerOptions extends ConnectionOptions, McpToolOptions {
  /** How long `waitForStartup` waits for each server; later servers' tools arrive after. Default 10 s. */
  startupTimeoutMs?: number;
}

export const DEFAULT_STARTUP_TIMEOUT_MS = 10_000;
/** Ceiling for waiting on a tool list refresh between turns. */
const REFRESH_WAIT_MS = 5_000;

export interface McpServerStatus {
  name: string;
  state: McpServerState;
  transport?: "stdio" | "http" | "sse";
  /** The MCP protocol version negotiated with it. */
  protocolVersion?: string;
  /** Why it failed or last went down. */
  error?: string;
  restarts: number;
  /** Model-facing names with the server's own names (and a note when renamed). */
  tools: { name: string; tool: string; readOnly: boolean; note?: string }[];
}

export type McpChangeListener = () => void;

export class McpManager {
  private readonly connections: McpServerConnection[];
  private readonly listeners = new Set<McpChangeListener>();
  private readonly startupTimeoutMs: number;
  private readonly toolOptions: McpToolOptions;
  private cache: McpAgentTool[] | undefined;
  /** Every tool this manager handed out, to tell them from other tools in a turn's list. */
  private readonly created = new WeakSet<AnyAgentTool>();
  private version = 0;

  constructor(servers: Record<string, McpServerConfig>, options: McpManagerOptions = {}) {
    this.startupTimeoutMs = options.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS;
    this.toolOptions =
      options.trustReadOnlyHints === undefined ? {} : { trustReadOnlyHints: options.trustReadOnlyHints };
    this.connections = Object.entries(servers).map(
      ([name, config]) => new McpServerConnection(name, config, options, () => this.changed()),
    );
  }

  /** Bumped whenever a server's state or tools change. */
  get toolsVersion(): number {
    return this.version;
  }

  /** Starts every server that has not started, in parallel; does not wait. */
  start(): void {
    for (const connection of this.connections) connection.start();
  }

  /**
   * Starts the servers and waits until each is ready or failed, but at most `startupTimeoutMs`
   * (so one slow server never holds up the first turn). Returns the status at that moment.
   */
  async waitForStartup(signal?: AbortSignal): Promise<McpServerStatus[]> {
    this.start();
    const limit = AbortSignal.timeout(this.startupTimeoutMs);
    const stop = signal ? AbortSignal.any([signal, limit]) : limit;
    await Promise.all(this.connections.map((connection) => connection.settled(stop)));
    return this.status();
  }

  /** The tools of the servers that are up (or restarting), under their unique names. Starts the servers. */
  tools(): McpAgentTool[] {
    this.start();
    return this.currentTools();
  }

  /** Every server's state and tools; does not start anything. */
  status(): McpServerStatus[] {
    const tools = this.currentTools();
    return this.connections.map((c) => {
      const status: McpServerStatus = {
        name: c.name,
        state: c.state,
        restarts: c.restarts,
        tools: tools
          .filter((tool) => tool.mcp.server === c.name)
          .map((tool) => ({
            name: tool.name,
            tool: tool.mcp.tool,
            readOnly: tool.kind === "read",
            ...(tool.mcp.nameNote ? { note: tool.mcp.nameNote } : {}),
          })),
      };
      if (c.transport) status.transport = c.transport;
      if (c.protocolVersion) status.protocolVersion = c.protocolVersion;
      if (c.error) status.error = c.error;
      return status;
    });
  }

  /** Called on every change of a server's state or tools; returns an unsubscribe function. */
  onChange(listener: McpChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * For `AgentLoopConfig.prepareNextTurn`: when the MCP toolset changed since the last turn, the
   * turn's tools become its non-MCP tools plus the current MCP tools. Waits (briefly) for tool
   * list refreshes in flight, so a tools/list_changed sent during a call counts for the next turn.
   * For one agent; agents sharing this manager each take their own `turnPreparer()`.
   */
  prepareNextTurn = this.turnPreparer();

  /** A `prepareNextTurn` that remembers which toolset its own agent saw last. */
  turnPreparer(): (turn: Pick<TurnPreparation, "tools">) => Promise<TurnPatch | undefined> {
    let seen = -1;
    return async (turn) => {
      const refreshes = this.connections.flatMap((c) => c.pendingRefresh() ?? []);
      if (refreshes.length > 0) {
        const limit = new Promise<void>((resolve) => setTimeout(resolve, REFRESH_WAIT_MS).unref());
        await Promise.race([Promise.all(refreshes), limit]);
      }
      if (this.version === seen) return undefined;
      seen = this.version;
      // Only this manager's tools are replaced: another manager's MCP tools stay.
      const own: AnyAgentTool[] = turn.tools.filter((tool) => !this.created.has(tool));
      return { tools: [...own, ...this.tools()] };
    };
  }

  /** The prompts of the servers that are up, named like tools (`mcp__<server>__<prompt>`). */
  prompts(): McpPromptCommand[] {
    const ready = this.connections.filter((c) => c.state === "ready");
    const names = assignToolNames(
      ready.flatMap((c) => c.prompts.map((prompt) => ({ server: c.name, tool: prompt.name }))),
    );
    return names.map((assigned) => ({
      name: assigned.name,
      server: assigned.server,
      prompt: ready.find((c) => c.name === assigned.server)!.prompts.find((p) => p.name === assigned.tool)!,
    }));
  }

  /** `prompts/get` on the command's server. */
  getPrompt(
    command: McpPromptCommand,
    args: Record<string, string>,
    signal?: AbortSignal,
  ): Promise<GetPromptResult> {
    return this.connection(command.server).getPrompt(command.prompt.name, args, signal);
  }

  /** `resources/read` on `server`. */
  async readResource(server: string, uri: string, signal?: AbortSignal): Promise<ReadResourceResult> {
    return this.connection(server).readResource(uri, signal);
  }

  private connection(server: string): McpServerConnection {
    const found = this.connections.find((c) => c.name === server);
    if (!found) throw new McpUnavailableError(`no MCP server "${server}"`);
    return found;
  }

  /** Tries a failed server again. */
  retry(server: string): void {
    this.connections.find((c) => c.name === server)?.retry();
  }

  async close(): Promise<void> {
    await Promise.all(this.connections.map((connection) => connection.close()));
  }

  private currentTools(): McpAgentTool[] {
    if (this.cache) return this.cache;
    const usable = this.connections.filter((c) => c.state === "ready" || c.state === "restarting");
    const byServer = new Map(usable.map((c) => [c.name, c]));
    const names = assignToolNames(
      usable.flatMap((c) => c.tools.map((tool) => ({ server: c.name, tool: tool.name }))),
    );
    this.cache = names.map((assigned) => {
      const connection = byServer.get(assigned.server)!;
      const definition = connection.tools.find((tool) => tool.name === assigned.tool)!;
      const tool = createMcpTool(assigned.name, definition, connection, {
        ...this.toolOptions,
        nameNote: assigned.note,
      });
      this.created.add(tool);
      return tool;
    });
    return this.cache;
  }

  private changed(): void {
    this.cache = undefined;
    this.version++;
    for (const listener of this.listeners) {
      try {
        listener();
      } catch {
        // A listener's failure is its own; the servers go on.
      }
    }
  }
}
