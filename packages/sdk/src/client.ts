// The client: spawns `tern serve --stdio` (or connects to a running server's JSON-RPC port),
// checks the protocol version, and creates, resumes, lists and deletes sessions.

import { type ChildProcess, spawn } from "node:child_process";
import { connect, type Socket } from "node:net";
import { RpcConnection } from "./rpc.js";
import { TernSession } from "./session.js";
import type {
  ModelInfo,
  ResumeConfig,
  SessionConfig,
  SessionEvent,
  SessionMetadata,
  TernClientOptions,
  ToolDefinition,
} from "./types.js";

/** The protocol version this client speaks (the Copilot CLI's). */
export const PROTOCOL_VERSION = 3;

export class TernClient {
  private rpc: RpcConnection | undefined;
  private child: ChildProcess | undefined;
  private socket: Socket | undefined;
  private starting: Promise<void> | undefined;
  private readonly sessions = new Map<string, TernSession>();

  constructor(private readonly options: TernClientOptions = {}) {}

  /** Starts the server (or connects); called by the first session operation. */
  start(): Promise<void> {
    this.starting ??= this.open().catch(async (error) => {
      this.starting = undefined;
      await this.stop();
      throw error;
    });
    return this.starting;
  }

  async createSession(config: SessionConfig = {}): Promise<TernSession> {
    const rpc = await this.connection();
    const sessionId = crypto.randomUUID();
    // Registered before the request: the server's first events arrive before its answer.
    const session = this.register(sessionId, config);
    try {
      await rpc.request("session.create", { sessionId, ...sessionParams(config) });
    } catch (error) {
      this.sessions.delete(sessionId);
      throw error;
    }
    return session;
  }

  async resumeSession(sessionId: string, config: ResumeConfig = {}): Promise<TernSession> {
    const rpc = await this.connection();
    const session = this.register(sessionId, config);
    try {
      await rpc.request("session.resume", {
        sessionId,
        ...sessionParams(config),
        ...(config.continuePendingWork ? { continuePendingWork: true } : {}),
      });
    } catch (error) {
      this.sessions.delete(sessionId);
      throw error;
    }
    return session;
  }

  async listSessions(): Promise<SessionMetadata[]> {
    const rpc = await this.connection();
    const { sessions } = await rpc.request<{ sessions: Record<string, unknown>[] }>("session.list");
    return sessions.map((raw) => ({
      sessionId: String(raw.sessionId),
      startTime: new Date(String(raw.startTime)),
      modifiedTime: new Date(String(raw.modifiedTime)),
      ...(typeof raw.summary === "string" ? { summary: raw.summary } : {}),
      ...(typeof (raw.context as { cwd?: unknown })?.cwd === "string"
        ? { cwd: (raw.context as { cwd: string }).cwd }
        : {}),
    }));
  }

  async getLastSessionId(): Promise<string | undefined> {
    const rpc = await this.connection();
    return (await rpc.request<{ sessionId?: string }>("session.getLastId")).sessionId;
  }

  async deleteSession(sessionId: string): Promise<void> {
    const rpc = await this.connection();
    const result = await rpc.request<{ success: boolean; error?: string }>("session.delete", { sessionId });
    if (!result.success)
      throw new Error(`Failed to delete session ${sessionId}: ${result.error ?? "unknown error"}`);
    this.sessions.get(sessionId)?.markClosed();
  }

  async listModels(): Promise<ModelInfo[]> {
    const rpc = await this.connection();
    return (await rpc.request<{ models: ModelInfo[] }>("models.list")).models;
  }

  async ping(message?: string): Promise<{ message: string; timestamp: string; protocolVersion: number }> {
    const rpc = await this.connection();
    return rpc.request("ping", message === undefined ? {} : { message });
  }

  /** Leaves every session and ends the connection (and the spawned server). */
  async stop(): Promise<void> {
    for (const session of [...this.sessions.values()]) await session.disconnect().catch(() => {});
    const child = this.child;
    this.rpc?.close();
    this.rpc = undefined;
    this.socket?.destroy();
    this.socket = undefined;
    this.child = undefined;
    this.starting = undefined;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.stdin?.end();
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    }
  }

  private async connection(): Promise<RpcConnection> {
    await this.start();
    if (!this.rpc) throw new Error("the client is stopped");
    return this.rpc;
  }

  private async open(): Promise<void> {
    const rpc =
      this.options.url !== undefined ? await this.connectSocket(this.options.url) : this.spawnServer();
    this.rpc = rpc;
    rpc.onNotification("session.event", (params) => {
      this.sessions.get(String(params.sessionId))?.dispatch(params.event as SessionEvent);
    });
    rpc.onRequest("hooks.invoke", async (params) => {
      const session = this.sessions.get(String(params.sessionId));
      return { output: await session?.invokeHook(String(params.hookType), params.input) };
    });
    rpc.onClose(() => {
      for (const session of [...this.sessions.values()]) session.markClosed();
    });
    const result = await rpc.request<{ protocolVersion?: number }>("connect", {
      ...(this.options.token ? { token: this.options.token } : {}),
    });
    if (result.protocolVersion !== PROTOCOL_VERSION)
      throw new Error(
        `protocol version mismatch: the server speaks ${result.protocolVersion}, this client ${PROTOCOL_VERSION}`,
      );
  }

  private spawnServer(): RpcConnection {
    const command = this.options.command ?? "tern";
    const args = this.options.args ?? (this.options.command ? [] : ["serve", "--stdio"]);
    const child = spawn(command, args, {
      stdio: ["pipe", "pipe", "pipe"],
      ...(this.options.cwd ? { cwd: this.options.cwd } : {}),
      ...(this.options.env ? { env: this.options.env } : {}),
    });
    this.child = child;
    let stderr = "";
    child.stderr!.setEncoding("utf8").on("data", (text: string) => {
      stderr = (stderr + text).slice(-4_000);
      if (this.options.onStderr) for (const line of text.split("\n")) if (line) this.options.onStderr(line);
    });
    const rpc = new RpcConnection(child.stdout!, child.stdin!);
    child.once("error", (error) => rpc.close(new Error(`could not start ${command}: ${error.message}`)));
    child.once("exit", (code) =>
      rpc.close(new Error(`the server exited (code ${code})${stderr ? `: ${stderr.trim()}` : ""}`)),
    );
    return rpc;
  }

  private connectSocket(url: string | number): Promise<RpcConnection> {
    const { host, port } = parseUrl(url);
    return new Promise((resolve, reject) => {
      const socket = connect(port, host, () => {
        socket.off("error", reject);
        this.socket = socket;
        resolve(new RpcConnection(socket, socket));
      });
      socket.once("error", reject);
    });
  }

  private register(sessionId: string, config: SessionConfig): TernSession {
    const session = new TernSession(sessionId, this.rpc!, config, () => this.sessions.delete(sessionId));
    this.sessions.set(sessionId, session);
    return session;
  }
}

function sessionParams(config: SessionConfig): Record<string, unknown> {
  const system =
    typeof config.systemMessage === "string" ? { content: config.systemMessage } : config.systemMessage;
  return {
    ...(config.model ? { model: config.model } : {}),
    ...(system ? { systemMessage: system } : {}),
    ...(config.tools ? { tools: config.tools.map(toolSpec) } : {}),
    ...(config.workingDirectory ? { workingDirectory: config.workingDirectory } : {}),
    requestPermission: config.onPermissionRequest !== undefined,
    hooks: config.hooks !== undefined && Object.values(config.hooks).some(Boolean),
    streaming: config.streaming ?? true,
  };
}

function toolSpec(tool: ToolDefinition<never>) {
  return {
    name: tool.name,
    ...(tool.description !== undefined ? { description: tool.description } : {}),
    ...(tool.parameters ? { parameters: tool.parameters } : {}),
    ...(tool.skipPermission ? { skipPermission: true } : {}),
  };
}

function parseUrl(url: string | number): { host: string; port: number } {
  if (typeof url === "number") return { host: "127.0.0.1", port: url };
  const clean = url.replace(/^(tcp|https?):\/\//, "");
  const colon = clean.lastIndexOf(":");
  if (colon < 0) return { host: "127.0.0.1", port: Number(clean) };
  return {
    host: clean.slice(0, colon).replace(/^\[|\]$/g, "") || "127.0.0.1",
    port: Number(clean.slice(colon + 1)),
  };
}
