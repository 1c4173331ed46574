// Which requests a browser page could have sent on someone else's behalf, refused before any
// route runs. DNS rebinding: a `Host` that is not the bound address (or, on loopback, a loopback
// name) is refused, so a page on evil.example that resolves to 127.0.0.1 reaches nothing. Cross-
// site requests: an `Origin` other than the server's own (or a `Sec-Fetch-Site` of another site)
// is refused unless the operator allowed that origin (--allow-origin), which also gets CORS
// headers. Only JSON bodies are read (see request.ts), so no "simple" form or text/plain POST
// works either. On a wildcard bind (0.0.0.0, ::) no name is known: the token is the guard there.

import type { IncomingMessage, ServerResponse } from "node:http";
import { isLoopback } from "./auth.js";
import { HttpError } from "./request.js";

const WILDCARDS = new Set(["0.0.0.0", "::", "[::]"]);
const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "::1"];
const CORS_MAX_AGE_S = 600;

export interface GuardOptions {
  /** The bound address. */
  host: string;
  /** Origins (scheme://host[:port]) allowed to call from a browser. */
  allowOrigins: readonly string[];
}

export class RequestGuard {
  private readonly names: Set<string> | undefined;
  private readonly origins: Set<string>;

  constructor(options: GuardOptions) {
    const host = bare(options.host);
    this.names = WILDCARDS.has(host)
      ? undefined
      : new Set([host, ...(isLoopback(host) ? LOOPBACK_NAMES : [])]);
    this.origins = new Set(options.allowOrigins);
  }

  /**
   * Throws a 403 for a request from the wrong place; sets CORS headers for an allowed origin.
   * True when the request was a CORS preflight, answered here.
   */
  check(req: IncomingMessage, res: ServerResponse): boolean {
    const hostHeader = req.headers.host;
    if (hostHeader === undefined) throw new HttpError(400, "bad_host", "the request has no Host header");
    const name = hostName(hostHeader);
    if (this.names && (name === undefined || !this.names.has(name)))
      throw new HttpError(403, "forbidden_host", "this server does not answer to that Host name");
    const origin = req.headers.origin;
    const own = origin !== undefined && origin === `http://${hostHeader.toLowerCase()}`;
    const allowed = origin !== undefined && this.origins.has(origin);
    if (origin !== undefined && !own && !allowed)
      throw new HttpError(403, "forbidden_origin", "cross-origin requests are refused (see --allow-origin)");
    const site = req.headers["sec-fetch-site"];
    if (origin === undefined && (site === "cross-site" || site === "same-site"))
      throw new HttpError(403, "forbidden_origin", "cross-site requests are refused (see --allow-origin)");
    if (allowed) {
      res.setHeader("access-control-allow-origin", origin);
      res.setHeader("vary", "Origin");
      if (req.method === "OPTIONS") {
        res.writeHead(204, {
          "access-control-allow-methods": "GET, POST, DELETE",
          "access-control-allow-headers": "authorization, content-type, last-event-id",
          "access-control-max-age": String(CORS_MAX_AGE_S),
        });
        res.end();
        return true;
      }
    }
    return false;
  }
}

function bare(host: string): string {
  return host.toLowerCase().replace(/^\[(.*)\]$/, "$1");
}

/** The name part of a Host header ("[::1]:7878" -> "::1"); undefined when it is not one. */
function hostName(header: string): string | undefined {
  try {
    const url = new URL(`http://${header}`);
    if (url.username || url.password || url.pathname !== "/") return undefined;
    return bare(url.hostname);
  } catch {
    return undefined;
  }
}
