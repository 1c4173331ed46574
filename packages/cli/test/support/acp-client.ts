// A real `tern acp` child process driven by the official ACP SDK's client app over its stdio: the
// test decides how permission questions and file reads are answered and sees every update.
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import {
  type ClientCapabilities,
  type ClientConnection,
  client,
  ndJsonStream,
  type ReadTextFileRequest,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
} from "@agentclientprotocol/sdk";
import { afterEach } from "vitest";
import { TERN_JS } from "./build.js";

export interface AcpPeer {
  child: ChildProcess;
  agent: ClientConnection["agent"];
  updates: SessionNotification[];
  permissions: RequestPermissionRequest[];
  reads: ReadTextFileRequest[];
  readonly stderr: string;
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
    get stderr() {
      return stderr;
    },
    close() {
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      child.stdin!.end();
      return child.exitCode !== null ? Promise.resolve(child.exitCode) : exited;
    },
    waitForUpdate(test) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no such update; stderr:\n${stderr}`)), 60_000);
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
