// The HTTP + SSE server. Loopback by default; binding elsewhere needs a token. Requests from the
// wrong Host or Origin are refused (guard.ts). Slow, idle or greedy clients cannot hold it:
// headers and body must arrive within their timeouts, a body over `maxBodyBytes` is 413, SSE
// streams are capped per session and in total (stream-cap.ts), and the connection cap keeps a
// reserve that only /healthz and token-carrying requests may use (connection-cap.ts).

import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Engine } from "../engine/engine.js";
import type { EngineOptions } from "../types.js";
import { checkBind } from "./auth.js";
import { capConnections, DEFAULT_RESERVED_CONNECTIONS } from "./connection-cap.js";
import { RequestGuard } from "./guard.js";
import { MAX_BODY_BYTES } from "./request.js";
import { handle } from "./routes.js";
import { StaticSite } from "./static.js";
import { DEFAULT_MAX_SESSION_STREAMS, DEFAULT_MAX_STREAMS, StreamCap } from "./stream-cap.js";

/** The request line and headers must arrive within this (by default). */
const HEADERS_TIMEOUT_MS = 10_000;
/** The whole request (headers and body; a stream's response is not counted) within this. */
const REQUEST_TIMEOUT_MS = 30_000;
/** How often Node checks those two timeouts, at most (shorter timeouts are checked as often). */
const TIMEOUT_CHECK_MS = 1_000;
const DEFAULT_MAX_CONNECTIONS = 1024;

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
  /** Ordinary open connections at most (see connection-cap.ts). Default 1024. */
  maxConnections?: number;
  /** Connections beyond that for /healthz and requests with the token. Default 16. */
  reservedConnections?: number;
  /** A connection beyond the reserve waits this long for the request its 503 answers. Default 2 s. */
  refusedLingerMs?: number;
  /** The largest request body read; a larger one is 413. Default 1 MB. */
  maxBodyBytes?: number;
  /** SSE streams open at once across the server; one more is 503. Default 512. */
  maxStreams?: number;
  /** SSE streams open at once on one session; one more is 429. Default 8. */
  maxSessionStreams?: number;
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
  const streams = new StreamCap({
    total: options.maxStreams ?? DEFAULT_MAX_STREAMS,
    perSession: options.maxSessionStreams ?? DEFAULT_MAX_SESSION_STREAMS,
  });
  const maxBodyBytes = options.maxBodyBytes ?? MAX_BODY_BYTES;
  const server: Server = createServer(
    {
      headersTimeout,
      requestTimeout,
      connectionsCheckingInterval: Math.min(TIMEOUT_CHECK_MS, headersTimeout),
    },
    (req, res) => {
      if (!admit(req, res)) return;
      open.add(res);
      res.on("close", () => open.delete(res));
      void handle(req, res, {
        engine,
        token: options.token,
        guard,
        log,
        maxBodyBytes,
        streams,
        ...(site ? { site } : {}),
        ...(options.keepAliveMs !== undefined ? { keepAliveMs: options.keepAliveMs } : {}),
        ...(options.sseRetryMs !== undefined ? { retryMs: options.sseRetryMs } : {}),
      });
    },
  );
  server.keepAliveTimeout = 5_000;
  // The gate the request handler above calls first.
  const admit = capConnections(server, {
    max: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
    reserve: options.reservedConnections ?? DEFAULT_RESERVED_CONNECTIONS,
    ...(options.refusedLingerMs !== undefined ? { refusedLingerMs: options.refusedLingerMs } : {}),
    token: options.token,
  });
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
