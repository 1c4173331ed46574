// The web page (`/`) and its assets, from a directory the caller names (the cli bundle ships one:
// @tern/web built into dist/web). The files are read once at start into memory, so no request
// path ever reaches the filesystem. Caching: the assets' names carry a content hash, so they are
// immutable; the page itself is revalidated on every load. Every answer carries a strict
// Content-Security-Policy: scripts and styles only from this server, no inline script, no eval,
// fetches only to this server (connect-src 'self'), no framing, no forms, no plugins.

import { readdirSync, readFileSync, statSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { extname, join } from "node:path";

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const PAGE_HEADERS = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cross-origin-opener-policy": "same-origin",
};
const IMMUTABLE = "public, max-age=31536000, immutable";
const REVALIDATE = "no-cache";
const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
};
const ASSETS_DIR = "assets";

interface StaticFile {
  body: Buffer;
  type: string;
  cache: string;
}

export class StaticSite {
  private readonly files = new Map<string, StaticFile>();

  /** Reads `root/index.html` and `root/assets/*`; throws when there is no index.html. */
  constructor(root: string) {
    this.files.set("/", {
      body: readFileSync(join(root, "index.html")),
      type: TYPES[".html"]!,
      cache: REVALIDATE,
    });
    const assets = join(root, ASSETS_DIR);
    let names: string[] = [];
    try {
      names = readdirSync(assets);
    } catch {}
    for (const name of names) {
      const path = join(assets, name);
      const type = TYPES[extname(name)];
      if (!type || !statSync(path).isFile()) continue;
      this.files.set(`/${ASSETS_DIR}/${name}`, { body: readFileSync(path), type, cache: IMMUTABLE });
    }
  }

  /** Answers GET/HEAD for the page and its assets; false when `pathname` is not one of them. */
  serve(req: IncomingMessage, res: ServerResponse, pathname: string): boolean {
    const file = this.files.get(pathname === "/index.html" ? "/" : pathname);
    if (!file || (req.method !== "GET" && req.method !== "HEAD")) return false;
    res.writeHead(200, {
      ...PAGE_HEADERS,
      "content-type": file.type,
      "content-length": file.body.length,
      "cache-control": file.cache,
    });
    res.end(req.method === "HEAD" ? undefined : file.body);
    return true;
  }
}
