// The network proxy of a sandboxed command: it runs in tern (outside the sandbox) on two Unix
// sockets bound into the sandbox, and is the command's only way out. One speaks HTTP (CONNECT
// tunnels and absolute-form requests, parsed by node:http), the other SOCKS5 (parsed by
// @pondwader/socks5-server). Every destination is checked against
// the host rules, resolved here, its addresses checked, and the connection made to the address
// that was checked: a second lookup could answer differently (DNS rebinding).

import { lookup as dnsLookup } from "node:dns/promises";
import http from "node:http";
import net from "node:net";
import { Socks5Server } from "@pondwader/socks5-server";
import { checkHost, checkResolved, type HostRules, NOT_LISTED, normalHost } from "./host-rules.js";

/** A client that sends no complete request for this long is dropped (a ceiling for hangs). */
export const DEFAULT_HANDSHAKE_MS = 30_000;
/** Request heads over this many bytes are answered 431. */
export const DEFAULT_MAX_HEADER_BYTES = 16 * 1024;
/** Hop-by-hop headers, never forwarded (RFC 9110 7.6.1), and the proxy's own. */
const HOP_HEADERS = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authorization",
  "proxy-authenticate",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

export interface Destination {
  host: string;
  port: number;
}

/** A connection the proxy refused, for the command's result. */
export interface Refusal extends Destination {
  reason: string;
}

export interface NetworkProxyOptions {
  /** Where the HTTP proxy listens (a Unix socket path). */
  httpSocket: string;
  /** Where the SOCKS5 proxy listens (a Unix socket path). */
  socksSocket: string;
  /** Read at every connection, so hosts allowed for the session apply at once. */
  rules: HostRules;
  /** Every address of a name. Default: the system resolver (dns.lookup, all addresses). */
  lookup?: (host: string) => Promise<string[]>;
  /**
   * Asked when a host is not in the allow-list (never for a denied host or an internal address):
   * true lets this connection through. Without it, such hosts are refused. `signal` aborts when
   * the proxy closes (the command ended): stop asking.
   */
  ask?: (destination: Destination, signal: AbortSignal) => Promise<boolean>;
  handshakeMs?: number;
  maxHeaderBytes?: number;
}

export interface NetworkProxy {
  /** The connections refused so far, one entry per host and port. */
  refusals(): Refusal[];
  close(): Promise<void>;
}

type Decision = { ok: true; address: string } | { ok: false; reason: string };

async function systemLookup(host: string): Promise<string[]> {
  return (await dnsLookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
}

export async function startNetworkProxy(options: NetworkProxyOptions): Promise<NetworkProxy> {
  const lookup = options.lookup ?? systemLookup;
  const handshakeMs = options.handshakeMs ?? DEFAULT_HANDSHAKE_MS;
  const refused = new Map<string, Refusal>();
  const sockets = new Set<net.Socket>();
  const closing = new AbortController();

  const refuse = (destination: Destination, reason: string): Decision => {
    const key = `${destination.host}:${destination.port}`;
    if (!refused.has(key)) refused.set(key, { host: destination.host, port: destination.port, reason });
    return { ok: false, reason };
  };

  const decide = async (destination: Destination): Promise<Decision> => {
    const { host, port } = destination;
    let verdict = checkHost(options.rules, host, port);
    if (verdict === NOT_LISTED && options.ask) {
      const allowed = await options.ask(destination, closing.signal).catch(() => false);
      verdict = allowed ? undefined : `${NOT_LISTED}, and the user did not allow it`;
    }
    if (verdict) return refuse(destination, verdict);
    let addresses: string[];
    try {
      addresses = net.isIP(normalHost(host)) ? [normalHost(host)] : await lookup(host);
    } catch (error) {
      return refuse(destination, `could not resolve: ${(error as NodeJS.ErrnoException).code ?? error}`);
    }
    if (addresses.length === 0) return refuse(destination, "could not resolve: no address");
    for (const address of addresses) {
      const why = checkResolved(options.rules, host, port, address);
      if (why) return refuse(destination, why);
    }
    return { ok: true, address: addresses[0]! };
  };

  /** Connects to the checked address; resolves with the open socket or the connect error's text. */
  const open = (address: string, port: number): Promise<net.Socket | string> =>
    new Promise((resolve) => {
      const upstream = net.connect({ host: address, port });
      sockets.add(upstream);
      upstream.once("close", () => sockets.delete(upstream));
      upstream.once("connect", () => resolve(upstream));
      upstream.once("error", (error: NodeJS.ErrnoException) => {
        upstream.destroy();
        resolve(error.code ?? error.message);
      });
    });

  const tunnel = (client: net.Socket, upstream: net.Socket) => {
    // The client may have gone while the destination was checked (or the user asked).
    if (client.destroyed) return upstream.destroy();
    client.setTimeout(0);
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
    client.pipe(upstream).pipe(client);
  };

  const httpServer = http.createServer({
    maxHeaderSize: options.maxHeaderBytes ?? DEFAULT_MAX_HEADER_BYTES,
  });
  httpServer.on("connect", (request: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    client.on("error", () => client.destroy());
    const destination = connectTarget(request.url ?? "");
    if (!destination) return answer(client, 400, `CONNECT needs HOST:PORT (got ${request.url})`);
    void decide(destination).then(
      async (decision) => {
        if (!decision.ok) return answer(client, 403, refusalText(destination, decision.reason));
        const upstream = await open(decision.address, destination.port);
        if (typeof upstream === "string")
          return answer(client, 502, `${destination.host}:${destination.port}: ${upstream}`);
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        if (head.length > 0) upstream.write(head);
        tunnel(client, upstream);
      },
      () => client.destroy(),
    );
  });
  httpServer.on("request", (request: http.IncomingMessage, response: http.ServerResponse) => {
    request.socket.setTimeout(0);
    const target = requestTarget(request.url ?? "");
    if (typeof target === "string") return plain(response, 400, target);
    void decide(target).then(
      (decision) => {
        if (!decision.ok) return plain(response, 403, refusalText(target, decision.reason));
        forward(request, response, target, decision.address);
      },
      () => response.destroy(),
    );
  });
  httpServer.on("clientError", (error: NodeJS.ErrnoException, client: net.Socket) => {
    if (!client.writable) return client.destroy();
    const tooLarge = error.code === "HPE_HEADER_OVERFLOW";
    answer(client, tooLarge ? 431 : 400, tooLarge ? "request head too large" : "malformed HTTP request");
  });

  const socks = new Socks5Server();
  socks.setConnectionHandler((connection, sendStatus) => {
    const client = connection.socket as net.Socket;
    client.on("error", () => client.destroy());
    const destination = { host: connection.destAddress, port: connection.destPort };
    void decide(destination).then(
      async (decision) => {
        if (!decision.ok) return sendStatus("CONNECTION_NOT_ALLOWED");
        const upstream = await open(decision.address, destination.port);
        if (typeof upstream === "string")
          return sendStatus(upstream === "ECONNREFUSED" ? "CONNECTION_REFUSED" : "HOST_UNREACHABLE");
        sendStatus("REQUEST_GRANTED");
        tunnel(client, upstream);
      },
      () => client.destroy(),
    );
  });

  const track = (client: net.Socket) => {
    sockets.add(client);
    client.once("close", () => sockets.delete(client));
    client.on("error", () => client.destroy());
    client.setTimeout(handshakeMs, () => client.destroy());
  };
  httpServer.on("connection", track);
  httpServer.headersTimeout = handshakeMs;
  const socksServer = net.createServer((client) => {
    track(client);
    socks._handleConnection(client);
  });
  const servers: net.Server[] = [httpServer, socksServer];
  await listen(httpServer, options.httpSocket);
  await listen(socksServer, options.socksSocket);
  // A proxy left open (an MCP server's, which lives as long as tern) never keeps tern alive.
  for (const server of servers) server.unref();

  return {
    refusals: () => [...refused.values()],
    close: async () => {
      closing.abort();
      for (const socket of sockets) socket.destroy();
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    },
  };

  function forward(
    request: http.IncomingMessage,
    response: http.ServerResponse,
    target: Destination & { path: string },
    address: string,
  ) {
    const headers: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(request.headers))
      if (!HOP_HEADERS.has(name)) headers[name] = value;
    const upstream = http.request({
      host: address,
      port: target.port,
      method: request.method,
      path: target.path,
      headers,
      setHost: false,
      agent: false,
    });
    upstream.on("response", (reply) => {
      const replyHeaders: http.OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(reply.headers))
        if (!HOP_HEADERS.has(name)) replyHeaders[name] = value;
      response.writeHead(reply.statusCode ?? 502, replyHeaders);
      reply.pipe(response);
    });
    upstream.on("error", (error: NodeJS.ErrnoException) => {
      if (!response.headersSent)
        plain(response, 502, `${target.host}:${target.port}: ${error.code ?? error.message}`);
      else response.destroy();
    });
    request.pipe(upstream);
  }
}

function listen(server: net.Server, socketPath: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

/** CONNECT's authority form, HOST:PORT or [V6]:PORT. */
function connectTarget(authority: string): Destination | undefined {
  const match = /^(\[[^\]]+\]|[^:[\]]+):(\d{1,5})$/.exec(authority);
  if (!match) return undefined;
  const port = Number(match[2]);
  if (port < 1 || port > 65535) return undefined;
  const host = match[1]!.startsWith("[") ? match[1]!.slice(1, -1) : match[1]!;
  return { host, port };
}

/** An absolute-form http:// request target, or what is wrong with it. */
function requestTarget(url: string): (Destination & { path: string }) | string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `a proxy request needs an absolute http:// URL (got ${JSON.stringify(url.slice(0, 200))})`;
  }
  if (parsed.protocol !== "http:")
    return `only http:// is forwarded; use CONNECT (HTTPS_PROXY) for ${parsed.protocol}`;
  const host = parsed.hostname.startsWith("[") ? parsed.hostname.slice(1, -1) : parsed.hostname;
  return { host, port: Number(parsed.port || 80), path: `${parsed.pathname}${parsed.search}` };
}

function refusalText(destination: Destination, reason: string): string {
  return `tern sandbox: connection to ${destination.host}:${destination.port} refused: ${reason}`;
}

/** A complete response written to a raw socket, which is then closed. */
function answer(client: net.Socket, status: number, text: string) {
  const body = `${text}\n`;
  client.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: text/plain; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

function plain(response: http.ServerResponse, status: number, text: string) {
  response.writeHead(status, { "content-type": "text/plain; charset=utf-8", connection: "close" });
  response.end(`${text}\n`);
}
