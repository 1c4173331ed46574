// `tern serve` in one call: one engine behind any of HTTP + SSE (--port), JSON-RPC over TCP
// (--rpc-port) and JSON-RPC over stdio (--stdio).

import { Engine } from "./engine/engine.js";
import { type HttpServer, startServer } from "./http/server.js";
import { type JsonRpcServer, serveJsonRpc } from "./rpc/serve.js";
import type { EngineOptions } from "./types.js";

export interface ServeOptions {
  engine: Engine | EngineOptions;
  /** HTTP + SSE port. */
  port?: number;
  /** JSON-RPC TCP port. */
  rpcPort?: number;
  /** JSON-RPC over this process's stdin/stdout. */
  stdio?: boolean;
  /** Bind address of the TCP listeners. Default 127.0.0.1. */
  host?: string;
  /** Required when `host` is not loopback. */
  token?: string;
  /** HTTP: origins whose pages may call the API (default none). */
  allowOrigins?: readonly string[];
  /** Open connections at most, for each TCP listener (HTTP, JSON-RPC). */
  maxConnections?: number;
  /** HTTP: the whole request (headers and body) within this (see startServer). */
  requestTimeoutMs?: number;
  /** HTTP: the request line and headers within this. */
  headersTimeoutMs?: number;
  /** JSON-RPC over TCP: close a connection without a session after this long quiet. */
  rpcIdleTimeoutMs?: number;
  /** HTTP: the largest request body read (see startServer). */
  maxBodyBytes?: number;
  /** HTTP: SSE streams open at once, across the server and on one session. */
  maxStreams?: number;
  maxSessionStreams?: number;
  /** JSON-RPC (TCP and stdio): the largest message and the most items in a batch. */
  maxMessageBytes?: number;
  maxBatchItems?: number;
  /** HTTP: a built web page to serve at `/` (see startServer). */
  webRoot?: string;
  /** Called once when a stdio client shuts the server down or its stdin ends. */
  onShutdown?: () => void;
}

export interface Served {
  engine: Engine;
  http?: HttpServer;
  rpc?: JsonRpcServer;
  stdio?: JsonRpcServer;
  /** Stops every listener and closes the open sessions. */
  close(): Promise<void>;
}

export async function serve(options: ServeOptions): Promise<Served> {
  const engine = options.engine instanceof Engine ? options.engine : new Engine(options.engine);
  const shared = {
    engine,
    ...(options.host !== undefined ? { host: options.host } : {}),
    ...(options.token !== undefined ? { token: options.token } : {}),
  };
  const rpcLimits = {
    ...(options.maxMessageBytes !== undefined ? { maxMessageBytes: options.maxMessageBytes } : {}),
    ...(options.maxBatchItems !== undefined ? { maxBatchItems: options.maxBatchItems } : {}),
  };
  const served: Served = {
    engine,
    close: async () => {
      await Promise.all([served.http?.close(), served.rpc?.close(), served.stdio?.close()]);
      await engine.shutdown();
    },
  };
  try {
    if (options.port !== undefined)
      served.http = await startServer({
        ...shared,
        port: options.port,
        ...(options.allowOrigins ? { allowOrigins: options.allowOrigins } : {}),
        ...(options.webRoot !== undefined ? { webRoot: options.webRoot } : {}),
        ...(options.maxConnections !== undefined ? { maxConnections: options.maxConnections } : {}),
        ...(options.requestTimeoutMs !== undefined ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
        ...(options.headersTimeoutMs !== undefined ? { headersTimeoutMs: options.headersTimeoutMs } : {}),
        ...(options.maxBodyBytes !== undefined ? { maxBodyBytes: options.maxBodyBytes } : {}),
        ...(options.maxStreams !== undefined ? { maxStreams: options.maxStreams } : {}),
        ...(options.maxSessionStreams !== undefined ? { maxSessionStreams: options.maxSessionStreams } : {}),
      });
    if (options.rpcPort !== undefined)
      served.rpc = await serveJsonRpc({
        ...shared,
        port: options.rpcPort,
        ...rpcLimits,
        ...(options.maxConnections !== undefined ? { maxConnections: options.maxConnections } : {}),
        ...(options.rpcIdleTimeoutMs !== undefined ? { idleTimeoutMs: options.rpcIdleTimeoutMs } : {}),
      });
    if (options.stdio)
      served.stdio = await serveJsonRpc({
        engine,
        stdio: true,
        ...rpcLimits,
        ...(options.onShutdown ? { onShutdown: options.onShutdown } : {}),
      });
  } catch (error) {
    await served.close();
    throw error;
  }
  return served;
}
