// The HTTP + SSE server. Loopback by default; binding elsewhere needs a token. Requests from the
// wrong Host or Origin are refused (guard.ts). Slow or idle clients cannot hold it: headers and
// body must arrive within their timeouts, and at the cap on open connections the oldest one
// that has no request in flight (a half-open or idle socket) is closed to make room; only when
// every connection is busy is the newcomer turned away with a 503, so /healthz stays reachable.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { Engine } from "../engine/engine.js";
import type { EngineOptions } from "../types.js";
import { checkBind } from "./auth.js";
import { RequestGuard } from "./guard.js";
import { handle } from "./routes.js";
import { StaticSite } from "./static.js";

/** The request line and headers must arrive within this (by default). */
const HEADERS_TIMEOUT_MS = 10_000;
/** The whole request (headers and body; a stream's response is not counted) within this. */
const REQUEST_TIMEOUT_MS = 30_000;
/** How often Node checks those two timeouts, at most (shorter timeouts are checked as often). */
const TIMEOUT_CHECK_MS = 1_000;
const DEFAULT_MAX_CONNECTIONS = 1024;
const BUSY_BODY = JSON.stringify({
  error: { code: "overloaded", message: "too many open connections; try again shortly" },
});
const BUSY_RESPONSE =
  "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 5\r\nContent-Type: application/json\r\n" +
  `Connection: close\r\nContent-Length: ${Buffer.byteLength(BUSY_BODY)}\r\n\r\n${BUSY_BODY}`;

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
  /** Origins (scheme://host[:port]) whose pages may call the API. Default none. */
  allowOrigins?: readonly string[];
  /** The whole request (headers and body) must arrive within this; else 408 and close. Default 30 s. */
  requestTimeoutMs?: number;
  /** The request line and headers within this (at most requestTimeoutMs). Default 10 s. */
  headersTimeoutMs?: number;
  /** Open connections at most (see above). Default 1024. */
  maxConnections?: number;
  /** Where server faults are logged. Default stderr. */
  log?: (text: string) => void;
  /** A built web page (index.html + assets/) to serve at `/`. Default none. */
  webRoot?: string;
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
  const guard = new RequestGuard({ host, allowOrigins: options.allowOrigins ?? [] });
  const log = options.log ?? ((text: string) => process.stderr.write(`tern serve: ${text}\n`));
  const site = options.webRoot !== undefined ? new StaticSite(options.webRoot) : undefined;
  const requestTimeout = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  // Node refuses a header timeout longer than the request's.
  const headersTimeout = Math.min(options.headersTimeoutMs ?? HEADERS_TIMEOUT_MS, requestTimeout);
  const server: Server = createServer(
    {
      headersTimeout,
      requestTimeout,
      connectionsCheckingInterval: Math.min(TIMEOUT_CHECK_MS, headersTimeout),
    },
    (req, res) => {
      open.add(res);
      res.on("close", () => open.delete(res));
      void handle(req, res, {
        engine,
        token: options.token,
        guard,
        log,
        ...(site ? { site } : {}),
        ...(options.keepAliveMs !== undefined ? { keepAliveMs: options.keepAliveMs } : {}),
        ...(options.sseRetryMs !== undefined ? { retryMs: options.sseRetryMs } : {}),
      });
    },
  );
  server.keepAliveTimeout = 5_000;
  capConnections(server, options.maxConnections ?? DEFAULT_MAX_CONNECTIONS);
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

/**
 * Keeps at most `max` sockets open. To make room it closes the oldest socket that never finished
 * a request (a half-open or slow one) and, failing that, the oldest idle keep-alive one; a socket
 * with a request in flight is never closed.
 */
function capConnections(server: Server, max: number): void {
  const sockets = new Set<Socket>();
  const inFlight = new WeakMap<Socket, number>();
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
    res.once("close", () => inFlight.set(socket, (inFlight.get(socket) ?? 1) - 1));
  });
  server.on("connection", (socket: Socket) => {
    if (sockets.size >= max) {
      const open = [...sockets];
      const victim = open.find((s) => !inFlight.has(s)) ?? open.find((s) => (inFlight.get(s) ?? 0) === 0);
      if (victim) {
        sockets.delete(victim);
        victim.destroy();
      } else {
        socket.end(BUSY_RESPONSE);
        socket.destroySoon();
        return;
      }
    }
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
}
