// One MCP server's life: connect (with a ceiling on the handshake), list its tools, keep the list
// fresh on `notifications/tools/list_changed`, call tools, and come back after a crash with
// exponential backoff. A server that never came up is "failed" at once (its configuration is
// probably wrong); one that was up and died is restarted, and "failed" only after
// `maxAttempts` restarts in a row did not come up.

import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  type CallToolResult,
  ErrorCode,
  type GetPromptResult,
  McpError,
  type Prompt,
  type ReadResourceResult,
  type Tool,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { McpServerConfig } from "./config.js";
import type { McpOAuthOptions } from "./oauth-provider.js";
import { httpStatus, type OpenedSession, openSession, SessionStartError } from "./transport.js";

export type McpServerState = "idle" | "starting" | "ready" | "restarting" | "failed" | "closed";

export interface RestartOptions {
  /** Restarts in a row that may fail before the server is "failed". Default 5. */
  maxAttempts?: number;
  /** First delay; doubles with each failed restart. Default 500 ms. */
  baseDelayMs?: number;
  /** Default 30 s. */
  maxDelayMs?: number;
}

export interface ConnectionOptions {
  /** Ceiling for connecting and the initialize handshake (a server that hangs at start). Default 60 s. */
  connectTimeoutMs?: number;
  /** Ceiling for one tool call without progress (progress resets it). Default 10 minutes. */
  callTimeoutMs?: number;
  restart?: RestartOptions;
  /** Where OAuth credentials of remote servers live (`tern mcp login`); without it, none are used. */
  oauth?: McpOAuthOptions;
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 60_000;
export const DEFAULT_CALL_TIMEOUT_MS = 600_000;
const DEFAULT_RESTART = { maxAttempts: 5, baseDelayMs: 500, maxDelayMs: 30_000 };

/** A call that could not reach its server (not ready, or it died mid-call): the message says which. */
export class McpUnavailableError extends Error {
  override name = "McpUnavailableError";
}

export class McpServerConnection {
  state: McpServerState = "idle";
  tools: Tool[] = [];
  /** The server's prompts (`prompts/list` at connect), for slash commands. */
  prompts: Prompt[] = [];
  /** Why the server failed or last went down. */
  error: string | undefined;
  transport: OpenedSession["transport"] | undefined;
  /** The MCP protocol version negotiated with the server (the latest session's). */
  protocolVersion: string | undefined;
  /** Restarts after crashes so far. */
  restarts = 0;
  private session: OpenedSession | undefined;
  private generation = 0;
  private failedRestarts = 0;
  private timer: NodeJS.Timeout | undefined;
  private waiters: (() => void)[] = [];
  private refreshing: Promise<void> | undefined;
  /** The client of the attempt in progress, so close() can end it. */
  private connecting: Client | undefined;
  private readonly connectTimeoutMs: number;
  private readonly callTimeoutMs: number;
  private readonly restart: Required<RestartOptions>;
  private readonly oauth: McpOAuthOptions | undefined;

  constructor(
    readonly name: string,
    readonly config: McpServerConfig,
    options: ConnectionOptions,
    /** Called on every change of state or tools. */
    private readonly changed: () => void,
  ) {
    this.connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    this.callTimeoutMs = options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    this.restart = { ...DEFAULT_RESTART, ...options.restart };
    this.oauth = options.oauth;
  }

  /** Starts connecting (once); does not wait. */
  start(): void {
    if (this.state === "idle") void this.launch(false);
  }

  /** Tries again after "failed" (a user's reconnect). */
  retry(): void {
    if (this.state !== "failed") return;
    this.failedRestarts = 0;
    void this.launch(false);
  }

  /** Resolves once the server is ready, failed or closed (or `signal` aborts). */
  settled(signal?: AbortSignal): Promise<void> {
    if (!this.busy() || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        signal?.removeEventListener("abort", done);
        resolve();
      };
      this.waiters.push(done);
      signal?.addEventListener("abort", done, { once: true });
    });
  }

  /** The tool list refresh in flight, if any. */
  pendingRefresh(): Promise<void> | undefined {
    return this.refreshing;
  }

  /** `prompts/get`: the prompt's messages with `args` filled in. */
  async getPrompt(
    prompt: string,
    args: Record<string, string>,
    signal?: AbortSignal,
  ): Promise<GetPromptResult> {
    const session = await this.readySession(signal);
    return session.client.getPrompt(
      { name: prompt, arguments: args },
      { timeout: this.callTimeoutMs, signal },
    );
  }

  /** `resources/read`: the contents of one resource. */
  async readResource(uri: string, signal?: AbortSignal): Promise<ReadResourceResult> {
    const session = await this.readySession(signal);
    return session.client.readResource({ uri }, { timeout: this.callTimeoutMs, signal });
  }

  /** The live session once the server settled; throws McpUnavailableError when it is not ready. */
  private async readySession(signal?: AbortSignal): Promise<OpenedSession> {
    this.start();
    if (this.busy()) await this.settled(signal);
    signal?.throwIfAborted();
    const session = this.session;
    if (this.state !== "ready" || !session) {
      throw new McpUnavailableError(
        `MCP server "${this.name}" is ${this.state}${this.error ? `: ${this.error}` : ""}`,
      );
    }
    return session;
  }

  async callTool(
    tool: string,
    args: Record<string, unknown>,
    options: Pick<RequestOptions, "signal" | "onprogress">,
  ): Promise<CallToolResult> {
    const session = await this.readySession(options.signal);
    try {
      const result = await session.client.callTool({ name: tool, arguments: args }, undefined, {
        ...options,
        timeout: this.callTimeoutMs,
        resetTimeoutOnProgress: true,
      });
      return result as CallToolResult;
    } catch (error) {
      if (error instanceof UnauthorizedError) {
        // The login is gone (refresh refused): no reconnect can fix that, only the user.
        this.session = undefined;
        this.error = loginMessage(this.name, error);
        this.tools = [];
        void session.client.close().catch(() => {});
        this.setState("failed");
        throw new McpUnavailableError(`MCP server "${this.name}": ${this.error}`);
      }
      if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
        throw new McpUnavailableError(
          `MCP server "${this.name}" stopped during the call (${error.message}); it is being restarted. ` +
            "The call may or may not have taken effect.",
        );
      }
      if (this.config.type !== "stdio" && !(error instanceof McpError) && !options.signal?.aborted) {
        // A remote server that stopped answering (or forgot our session): connect again.
        const reason = `the server could not be reached (${(error as Error)?.message ?? String(error)})`;
        this.lost(this.generation, session, reason);
        void session.client.close().catch(() => {});
        throw new McpUnavailableError(
          `MCP server "${this.name}": ${reason}; reconnecting. The call may or may not have taken effect.`,
        );
      }
      throw error;
    }
  }

  async close(): Promise<void> {
    this.generation++;
    clearTimeout(this.timer);
    const clients = [this.session?.client, this.connecting];
    this.session = undefined;
    this.connecting = undefined;
    this.setState("closed");
    // Closing a client that is still connecting ends its handshake (and its child process) now.
    await Promise.all(clients.map((client) => client?.close().catch(() => {})));
  }

  private busy(): boolean {
    return this.state === "idle" || this.state === "starting" || this.state === "restarting";
  }

  private async launch(isRestart: boolean): Promise<void> {
    const generation = ++this.generation;
    this.setState(isRestart ? "restarting" : "starting");
    let session: OpenedSession | undefined;
    try {
      session = await openSession(this.config, {
        timeoutMs: this.connectTimeoutMs,
        name: this.name,
        ...(this.oauth ? { oauth: this.oauth } : {}),
        setup: (client) => {
          this.connecting = client;
          client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
            if (generation === this.generation) this.refreshTools(client);
          });
        },
      });
      // Both lists at once: a server with prompts costs no extra round trip at start-up.
      const [tools, prompts] = await Promise.all([
        listAllTools(session.client, this.connectTimeoutMs),
        listAllPrompts(session.client, this.connectTimeoutMs),
      ]);
      this.connecting = undefined;
      if (generation !== this.generation) {
        await session.client.close().catch(() => {});
        return;
      }
      const opened = session;
      this.session = opened;
      this.transport = opened.transport;
      this.protocolVersion = opened.protocolVersion;
      this.tools = tools;
      this.prompts = prompts;
      this.error = undefined;
      this.failedRestarts = 0;
      opened.client.onclose = () => this.lost(generation, opened);
      this.setState("ready");
    } catch (error) {
      if (generation !== this.generation) return;
      this.connecting = undefined;
      await session?.client.close().catch(() => {});
      // Closed (or retried) while this attempt was cleaning up: that newer state stands.
      if (generation !== this.generation) return;
      this.error =
        error instanceof UnauthorizedError
          ? loginMessage(this.name, error)
          : describeStartError(error, session?.stderr() ?? "", this.name);
      if (isRestart && ++this.failedRestarts < this.restart.maxAttempts) this.scheduleRestart();
      else {
        this.tools = [];
        this.setState("failed");
      }
    }
  }

  /** The connection closed (or stopped answering) under a ready server: restart it. */
  private lost(generation: number, session: OpenedSession, reason?: string): void {
    if (generation !== this.generation || this.session !== session) return;
    this.session = undefined;
    const stderr = session.stderr();
    this.error = reason ?? `the server went away${stderr ? ` (stderr: ${stderr})` : ""}`;
    this.scheduleRestart();
  }

  private scheduleRestart(): void {
    const delay = Math.min(this.restart.maxDelayMs, this.restart.baseDelayMs * 2 ** this.failedRestarts);
    this.restarts++;
    this.setState("restarting");
    const generation = this.generation;
    this.timer = setTimeout(() => {
      if (generation === this.generation) void this.launch(true);
    }, delay);
    this.timer.unref();
  }

  private refreshTools(client: Client): void {
    const refresh = listAllTools(client, this.connectTimeoutMs).then(
      (tools) => {
        if (this.session?.client !== client) return;
        this.tools = tools;
        this.changed();
      },
      (error: unknown) => {
        // The old list stays; the next notification or restart tries again.
        this.error = `refreshing the tool list failed: ${(error as Error).message}`;
        this.changed();
      },
    );
    const tracked = refresh.finally(() => {
      if (this.refreshing === tracked) this.refreshing = undefined;
    });
    this.refreshing = tracked;
  }

  private setState(state: McpServerState): void {
    this.state = state;
    if (!this.busy()) for (const wake of this.waiters.splice(0)) wake();
    this.changed();
  }
}

/** Every page of `tools/list` (none when the server has no tools capability). */
function listAllTools(client: Client, timeoutMs: number): Promise<Tool[]> {
  if (!client.getServerCapabilities()?.tools) return Promise.resolve([]);
  return allPages(async (cursor) => {
    const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: timeoutMs });
    return { items: page.tools, nextCursor: page.nextCursor };
  });
}

/** Every page of `prompts/list` (none when the server has no prompts capability). */
function listAllPrompts(client: Client, timeoutMs: number): Promise<Prompt[]> {
  if (!client.getServerCapabilities()?.prompts) return Promise.resolve([]);
  return allPages(async (cursor) => {
    const page = await client.listPrompts(cursor ? { cursor } : undefined, { timeout: timeoutMs });
    return { items: page.prompts, nextCursor: page.nextCursor };
  });
}

/** Follows an MCP list's cursors to the end. */
async function allPages<T>(
  page: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string | undefined }>,
): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const next = await page(cursor);
    items.push(...next.items);
    cursor = next.nextCursor;
  } while (cursor);
  return items;
}

/** A server whose OAuth login no longer works. */
function loginMessage(name: string, error: UnauthorizedError): string {
  return `not authorized (${error.message}): the OAuth login has expired or was revoked; run \`tern mcp login ${name}\``;
}

function describeStartError(failure: unknown, sessionStderr: string, name: string): string {
  const error = failure instanceof SessionStartError ? failure.cause : failure;
  const stderr = failure instanceof SessionStartError ? failure.stderr : sessionStderr;
  let message = error instanceof Error ? error.message : String(error);
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
    message = `no answer to the MCP handshake (${message})`;
  } else if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
    message = `the server exited during startup (${message})`;
  }
  const status = httpStatus(error);
  if (status !== undefined) message = `HTTP ${status}: ${message}`;
  if (status === 401) message += `; if the server uses OAuth, run \`tern mcp login ${name}\``;
  return stderr ? `${message}; stderr: ${stderr}` : message;
}
