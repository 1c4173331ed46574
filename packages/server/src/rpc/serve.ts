// JSON-RPC over stdio (one connection: this process's stdin/stdout, or any stream pair) or over
// TCP (a connection per socket). Loopback by default; another host needs a token, which clients
// send in `connect` (the Copilot SDK's connectionToken). A TCP connection that moves no bytes
// either way for the idle timeout while it holds no session (one that sent nothing, or half a
// frame, and stopped) is closed, so quiet sockets cannot keep the connection cap full. Each
// connection reads messages up to `maxMessageBytes` and batches up to `maxBatchItems` (peer.ts).

import { createServer, type Server, type Socket } from "node:net";
import type { Readable, Writable } from "node:stream";
import { Engine } from "../engine/engine.js";
import { checkBind } from "../http/auth.js";
import type { EngineOptions } from "../types.js";
import { CopilotConnection } from "./copilot-methods.js";
import { JsonRpcPeer, type PeerLimits } from "./peer.js";

const DEFAULT_MAX_CONNECTIONS = 256;
const DEFAULT_IDLE_TIMEOUT_MS = 300_000;

export interface JsonRpcServeOptions extends PeerLimits {
  engine: Engine | EngineOptions;
  /** Serve one connection over stdio (true: process.stdin/stdout) instead of listening on TCP. */
  stdio?: boolean | { input: Readable; output: Writable };
  /** TCP port (default 0: any free port). */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  token?: string;
  /** TCP: open connections at most; one more is closed at once. Default 256. */
  maxConnections?: number;
  /** TCP: close a connection without a session after this long with no bytes either way. Default 5 min. */
  idleTimeoutMs?: number;
  /** A client called runtime.shutdown, or the stdio connection ended. */
  onShutdown?: () => void;
}

export interface JsonRpcServer {
  readonly engine: Engine;
  /** The TCP port (undefined over stdio). */
  readonly port: number | undefined;
  readonly host: string | undefined;
  /** Ends the connections (and the listener); the engine stays up unless `engine: true`. */
  close(options?: { engine?: boolean }): Promise<void>;
}

/** Serves one JSON-RPC connection over a stream pair. */
export function serveConnection(
  engine: Engine,
  input: Readable,
  output: Writable,
  options: ConnectionOptions = {},
): JsonRpcPeer {
  return connectionOn(engine, input, output, options).peer;
}

interface ConnectionOptions {
  token?: string;
  onShutdown?: () => void;
  limits?: PeerLimits;
}

function connectionOn(
  engine: Engine,
  input: Readable,
  output: Writable,
  options: ConnectionOptions,
): { peer: JsonRpcPeer; connection: CopilotConnection } {
  let connection: CopilotConnection | undefined;
  const peer = new JsonRpcPeer(input, output, (method) => connection?.handler(method), {
    ...options.limits,
    redactor: engine.redactor,
  });
  connection = new CopilotConnection(engine, peer, options);
  peer.onClose(() => connection?.closeAll());
  return { peer, connection };
}

export async function serveJsonRpc(options: JsonRpcServeOptions): Promise<JsonRpcServer> {
  const engine = options.engine instanceof Engine ? options.engine : new Engine(options.engine);
  const connectionOptions: ConnectionOptions = {
    ...(options.token ? { token: options.token } : {}),
    ...(options.onShutdown ? { onShutdown: options.onShutdown } : {}),
    limits: {
      ...(options.maxMessageBytes !== undefined ? { maxMessageBytes: options.maxMessageBytes } : {}),
      ...(options.maxBatchItems !== undefined ? { maxBatchItems: options.maxBatchItems } : {}),
    },
  };
  if (options.stdio) {
    const { input, output } =
      options.stdio === true
        ? { input: process.stdin as Readable, output: process.stdout as Writable }
        : options.stdio;
    const peer = serveConnection(engine, input, output, connectionOptions);
    if (options.onShutdown) peer.onClose(options.onShutdown);
    return {
      engine,
      port: undefined,
      host: undefined,
      close: async (closeOptions = {}) => {
        peer.close();
        if (closeOptions.engine) await engine.shutdown();
      },
    };
  }
  const host = options.host ?? "127.0.0.1";
  checkBind(host, options.token, "tern serve --rpc-port");
  const sockets = new Set<Socket>();
  const maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const server: Server = createServer((socket) => {
    // JSON-RPC connections are long-lived sessions: at the cap, the newcomer is the one refused.
    if (sockets.size >= maxConnections) {
      socket.destroy();
      return;
    }
    sockets.add(socket);
    // Small frames go out at once (Nagle would hold them for the peer's delayed ACK).
    socket.setNoDelay(true);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    const { connection } = connectionOn(engine, socket, socket, connectionOptions);
    // Node re-arms the timer on the next byte, so a session's end restarts the count.
    socket.setTimeout(idleTimeoutMs, () => {
      if (connection.openSessions === 0) socket.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : (options.port ?? 0);
  return {
    engine,
    port,
    host,
    close: async (closeOptions = {}) => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (closeOptions.engine) await engine.shutdown();
    },
  };
}
