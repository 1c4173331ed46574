// At most `max` ordinary connections, plus a reserve of `reserve` that only /healthz and requests
// carrying the server's token may use, so health checks and the operator get through however
// many clients hold streams open. At the ordinary cap the oldest socket that never finished a
// request (a half-open or slow one), else the oldest idle keep-alive one, is closed to make room;
// a socket with a request in flight never is. A newcomer that still finds the ordinary cap full
// is accepted into the reserve, its request read, and refused with a 503 (the connection closed)
// if it is an ordinary one while the cap is still full. With the reserve full too, every request
// on it is a 503 and it is not counted; it is closed after that answer, or after a short linger
// if no request comes. (Closing it at once, with the client's request unread, would reset the
// connection and the client would see that instead of the 503.)

import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { authorized } from "./auth.js";

/** Connections kept for /healthz and token-carrying requests, by default. */
export const DEFAULT_RESERVED_CONNECTIONS = 16;
/** How long a connection beyond the reserve may wait to send the request its 503 answers. */
export const REFUSED_LINGER_MS = 2_000;
const RETRY_AFTER_S = "5";
const BUSY_BODY = JSON.stringify({
  error: { code: "overloaded", message: "too many open connections; try again shortly" },
});

export interface ConnectionCapOptions {
  /** Ordinary connections at most. */
  max: number;
  /** Connections above `max` for /healthz and requests with the token. */
  reserve: number;
  /** The server's bearer token; without one only /healthz may use the reserve. */
  token: string | undefined;
  /** A connection beyond the reserve is closed after this if no request came. Default 2 s. */
  refusedLingerMs?: number;
}

/**
 * Caps `server`'s connections. The function returned is the request gate: call it first for each
 * request; false means it was refused (answered already).
 */
export function capConnections(
  server: Server,
  options: ConnectionCapOptions,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  const { max, reserve, token } = options;
  const sockets = new Set<Socket>();
  const reserved = new WeakSet<Socket>();
  const refused = new WeakSet<Socket>();
  const inFlight = new WeakMap<Socket, number>();
  server.on("connection", (socket: Socket) => {
    if (sockets.size >= max) {
      const open = [...sockets];
      const victim = open.find((s) => !inFlight.has(s)) ?? open.find((s) => (inFlight.get(s) ?? 0) === 0);
      if (victim) {
        sockets.delete(victim);
        victim.destroy();
      }
    }
    if (sockets.size >= max + reserve) {
      refused.add(socket);
      socket.setTimeout(options.refusedLingerMs ?? REFUSED_LINGER_MS, () => socket.destroy());
      return;
    }
    if (sockets.size >= max) reserved.add(socket);
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  const privileged = (req: IncomingMessage) =>
    (req.method === "GET" && (req.url ?? "").split("?")[0] === "/healthz") ||
    (token !== undefined && authorized(req, token));
  return (req, res) => {
    const socket = req.socket;
    inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
    res.once("close", () => inFlight.set(socket, (inFlight.get(socket) ?? 1) - 1));
    if (reserved.has(socket) && sockets.size <= max) {
      // Room again among the ordinary connections: this one is ordinary from now on.
      reserved.delete(socket);
    }
    const busy = refused.has(socket) || (reserved.has(socket) && !privileged(req));
    if (!busy) return true;
    res.writeHead(503, {
      "retry-after": RETRY_AFTER_S,
      "content-type": "application/json",
      "content-length": Buffer.byteLength(BUSY_BODY),
      connection: "close",
    });
    res.end(BUSY_BODY);
    return false;
  };
}
