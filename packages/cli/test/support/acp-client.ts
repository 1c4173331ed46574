// A real `tern acp` child process driven by the official ACP SDK's client app over its stdio: the
// test decides how permission questions and file reads are answered and sees every update.
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import {
  type ClientCapabilities,
  type ClientConnection,
  type CreateTerminalRequest,
  client,
  ndJsonStream,
  type ReadTextFileRequest,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
  type WriteTextFileRequest,
} from "@agentclientprotocol/sdk";
import { afterEach } from "vitest";
import { TERN_JS } from "./build.js";

export interface AcpPeer {
  child: ChildProcess;
  agent: ClientConnection["agent"];
  updates: SessionNotification[];
  permissions: RequestPermissionRequest[];
  reads: ReadTextFileRequest[];
  writes: WriteTextFileRequest[];
  /** The commands run in the client's terminal. */
  commands: CreateTerminalRequest[];
  readonly stderr: string;
  /** session/new in `cwd` with no MCP servers. */
  newSession(cwd: string): Promise<{ sessionId: string }>;
  /** session/prompt with one text block. */
  prompt(sessionId: string, text: string): Promise<{ stopReason: string }>;
  /** Closes the agent's stdin (the client going away) and resolves with its exit code. */
  close(): Promise<number | null>;
  /** Resolves once an update matching `test` arrived (a ceiling for hangs only). */
  waitForUpdate(test: (update: SessionNotification["update"]) => boolean): Promise<void>;
}

export interface AcpPeerOptions {
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  capabilities?: ClientCapabilities;
  /** The option the client picks for every permission question (default: reject_once). */
  answer?: (request: RequestPermissionRequest) => RequestPermissionResponse;
  /** What the editor's buffer holds for a path (default: the file on disk). */
  buffer?: (path: string) => string;
}

const started: ChildProcess[] = [];

afterEach(() => {
  for (const child of started.splice(0)) child.kill();
});

/** Starts `tern acp ARGS`, connects the SDK's client to it and initializes. */
export async function startAcp(options: AcpPeerOptions): Promise<AcpPeer> {
  const child = spawn(process.execPath, [TERN_JS, "acp", ...options.args], {
    env: options.env,
    cwd: options.cwd,
    stdio: ["pipe", "pipe", "pipe"],
  });
  started.push(child);
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (text: string) => {
    stderr += text;
  });
  const updates: SessionNotification[] = [];
  const permissions: RequestPermissionRequest[] = [];
  const reads: ReadTextFileRequest[] = [];
  const writes: WriteTextFileRequest[] = [];
  const commands: CreateTerminalRequest[] = [];
  const terminals = new Map<string, ClientTerminal>();
  const terminal = (id: string) => {
    const found = terminals.get(id);
    if (!found) throw new Error(`no terminal ${id}`);
    return found;
  };
  const waiters = new Set<() => void>();
  const app = client({ name: "tern-test" })
    .onNotification("session/update", ({ params }) => {
      updates.push(params);
      for (const waiter of [...waiters]) waiter();
    })
    .onRequest("session/request_permission", ({ params }) => {
      permissions.push(params);
      return options.answer?.(params) ?? { outcome: { outcome: "selected", optionId: "reject_once" } };
    })
    .onRequest("fs/read_text_file", ({ params }) => {
      reads.push(params);
      return { content: options.buffer?.(params.path) ?? readFileSync(params.path, "utf8") };
    })
    // The editor keeps the written text in its buffer: nothing reaches the disk in these tests.
    .onRequest("fs/write_text_file", ({ params }) => {
      writes.push(params);
      return {};
    })
    .onRequest("terminal/create", ({ params }) => {
      commands.push(params);
      const id = `t${commands.length}`;
      terminals.set(id, new ClientTerminal(params));
      return { terminalId: id };
    })
    .onRequest("terminal/output", ({ params }) => terminal(params.terminalId).output())
    .onRequest("terminal/wait_for_exit", ({ params }) => terminal(params.terminalId).exited)
    .onRequest("terminal/kill", ({ params }) => {
      terminal(params.terminalId).kill();
      return {};
    })
    .onRequest("terminal/release", ({ params }) => {
      terminal(params.terminalId).kill();
      terminals.delete(params.terminalId);
      return {};
    });
  const connection = app.connect(
    ndJsonStream(
      Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>,
    ),
  );
  await connection.agent.request("initialize", {
    protocolVersion: 1,
    clientCapabilities: options.capabilities ?? {},
  });
  return {
    child,
    agent: connection.agent,
    updates,
    permissions,
    reads,
    writes,
    commands,
    get stderr() {
      return stderr;
    },
    newSession: (cwd) => connection.agent.request("session/new", { cwd, mcpServers: [] }),
    prompt: (sessionId, text) =>
      connection.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] }),
    close() {
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      child.stdin!.end();
      return child.exitCode !== null ? Promise.resolve(child.exitCode) : exited;
    },
    waitForUpdate(test) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no such update; stderr:\n${stderr}`)), 180_000);
        const check = () => {
          if (updates.some((notification) => test(notification.update))) {
            clearTimeout(timer);
            waiters.delete(check);
            resolve();
          }
        };
        waiters.add(check);
        check();
      });
    },
  };
}

/** The client's terminal: the command as a real child process, its output kept for the agent. */
class ClientTerminal {
  private text = "";
  private readonly child: ChildProcess;
  private status: { exitCode: number | null; signal: string | null } | undefined;
  readonly exited: Promise<{ exitCode: number | null; signal: string | null }>;

  constructor(request: CreateTerminalRequest) {
    this.child = spawn(request.command, request.args ?? [], {
      cwd: request.cwd ?? undefined,
      stdio: ["ignore", "pipe", "pipe"],
    });
    for (const stream of [this.child.stdout!, this.child.stderr!])
      stream.setEncoding("utf8").on("data", (chunk: string) => {
        this.text += chunk;
      });
    this.exited = new Promise((resolve) =>
      this.child.once("close", (exitCode, signal) => {
        this.status = { exitCode, signal };
        resolve(this.status);
      }),
    );
    started.push(this.child);
  }

  output() {
    return { output: this.text, truncated: false, ...(this.status ? { exitStatus: this.status } : {}) };
  }

  kill(): void {
    if (!this.status) this.child.kill();
  }
}
