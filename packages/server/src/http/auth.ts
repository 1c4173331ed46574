// Who may talk to the server: loopback binds are open (like any local dev server); any other
// bind needs a bearer token, checked in constant time.

import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { isIPv4 } from "node:net";

const LOOPBACK_NAMES = new Set(["::1", "localhost"]);

/** 127.0.0.0/8 as an address (not a name such as 127.evil.example), ::1, or localhost. */
export function isLoopback(host: string): boolean {
  const name = host.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  return LOOPBACK_NAMES.has(name) || (isIPv4(name) && name.startsWith("127."));
}

/** Throws when `host` is not loopback and no token guards it. */
export function checkBind(host: string, token: string | undefined, what: string): void {
  if (!isLoopback(host) && !token)
    throw new Error(
      `${what}: binding to ${host} (not loopback) requires a token (--token or TERN_SERVER_TOKEN)`,
    );
}

export function tokenMatches(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** True when no token is set or the request carries `Authorization: Bearer <token>`. */
export function authorized(req: IncomingMessage, token: string | undefined): boolean {
  if (!token) return true;
  const header = req.headers.authorization ?? "";
  const match = /^Bearer\s+(.+)$/i.exec(header);
  return match !== null && tokenMatches(match[1]!.trim(), token);
}
