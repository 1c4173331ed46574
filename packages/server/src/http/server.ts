// The HTTP + SSE server. Loopback by default; binding elsewhere needs a token.

import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Engine } from "../engine/engine.js";
import type { EngineOptions } from "../types.js";
import { checkBind } from "./auth.js";
import { handle } from "./routes.js";

export interface HttpServerOptions {
  /** A shared engine, or options to make one. */
  engine: Engine | EngineOptions;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (any free port). */
  port?: number;
  /** Bearer token required on /api routes; mandatory when `host` is not loopback. */
  token?: string;
  /** SSE keepalive comment interval. Default 15 s. */
  keepAliveMs?: number;
  /** How soon EventSource clients reconnect after a drop (SSE `retry:`). Default 1 s. */
  sseRetryMs?: number;
}

export interface HttpServer {
  readonly engine: Engine;
  readonly host: string;
  readonly port: number;
  /** http://host:port */
  readonly url: string;
  /** Stops listening, ends open streams; the engine stays up unless `engine: true`. */
  close(options?: { engine?: boolean }): Promise<void>;
}

export async function startServer(options: HttpServerOptions): Promise<HttpServer> {
  const host = options.host ?? "127.0.0.1";
  checkBind(host, options.token, "tern serve --port");
  const engine = options.engine instanceof Engine ? options.engine : new Engine(options.engine);
  const open = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    open.add(res);
    res.on("close", () => open.delete(res));
    void handle(req, res, {
      engine,
      token: options.token,
      ...(options.keepAliveMs !== undefined ? { keepAliveMs: options.keepAliveMs } : {}),
      ...(options.sseRetryMs !== undefined ? { retryMs: options.sseRetryMs } : {}),
    });
  });
  // Many concurrent streams are the point: no per-socket idle timeout cuts a long run.
  server.requestTimeout = 0;
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const shown = host.includes(":") ? `[${host}]` : host;
  return {
    engine,
    host,
    port,
    url: `http://${shown}:${port}`,
    close: async (closeOptions = {}) => {
      for (const res of open) res.end();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (closeOptions.engine) await engine.shutdown();
    },
  };
}
