// The sandbox's network proxy on its own, over its real Unix sockets (no sandbox): the host rules
// (patterns, deny over allow, internal addresses only when named), resolution once and the
// connection to the checked address (DNS rebinding), the user's answer in ask mode, and
// malformed input on both protocols, after which the proxy still serves.

import http from "node:http";
import net from "node:net";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkHost, checkResolved, parseHostPattern, parseHostRules } from "../src/sandbox/host-rules.js";
import { type NetworkProxy, startNetworkProxy } from "../src/sandbox/network-proxy.js";
import { tempDir } from "./support.js";
import { loopbackHttp, waitFor } from "./support-sandbox.js";

describe("host patterns", () => {
  it("parses hosts, wildcards, ports and IPv6 literals", () => {
    expect(parseHostPattern("Registry.NPMJS.org.")).toEqual({
      text: "Registry.NPMJS.org.",
      host: "registry.npmjs.org",
    });
    expect(parseHostPattern("*.npmjs.org:443")).toEqual({
      text: "*.npmjs.org:443",
      host: "*.npmjs.org",
      port: 443,
    });
    expect(parseHostPattern("[::1]:8080")).toEqual({ text: "[::1]:8080", host: "::1", port: 8080 });
    expect(parseHostPattern("::1").host).toBe("::1");
    expect(parseHostPattern("*").host).toBe("*");
  });

  it.each([
    ["", "no host"],
    ["foo*.com", "wildcards only"],
    ["a.com:0", "port must be 1-65535"],
    ["a.com:99999", "port must be 1-65535"],
    ["a.com:http", "port must be 1-65535"],
    ["[::1", 'missing "]"'],
    ["[::1]x", 'expected ":PORT"'],
    ["exa mple.com", "not a host name"],
  ])("refuses %j (%s)", (text, message) => {
    expect(() => parseHostPattern(text)).toThrow(message);
  });

  it("matches subdomains with *.x (not x itself), ports when given, and deny wins", () => {
    const rules = parseHostRules(["*.npmjs.org", "github.com:443", "*"], ["evil.npmjs.org"]);
    const only = parseHostRules(["*.npmjs.org", "github.com:443"]);
    expect(checkHost(only, "registry.npmjs.org", 443)).toBeUndefined();
    expect(checkHost(only, "a.b.npmjs.org", 80)).toBeUndefined();
    expect(checkHost(only, "npmjs.org", 443)).toBe("not in the allow-list");
    expect(checkHost(only, "badnpmjs.org", 443)).toBe("not in the allow-list");
    expect(checkHost(only, "GitHub.com", 443)).toBeUndefined();
    expect(checkHost(only, "github.com", 22)).toBe("not in the allow-list");
    expect(checkHost(rules, "evil.npmjs.org", 443)).toBe('denied by "evil.npmjs.org"');
  });

  it("refuses internal addresses unless the allow-list names them; localhost may be loopback", () => {
    const rules = parseHostRules(["*", "10.1.2.3", "localhost:8080"], ["203.0.113.9"]);
    expect(checkResolved(rules, "example.com", 443, "93.184.215.14")).toBeUndefined();
    expect(checkResolved(rules, "example.com", 443, "127.0.0.1")).toBe(
      "127.0.0.1 is a loopback address, which the allow-list does not name",
    );
    expect(checkResolved(rules, "example.com", 443, "169.254.169.254")).toContain("link-local");
    expect(checkResolved(rules, "example.com", 443, "::ffff:192.168.0.1")).toContain("private network");
    expect(checkResolved(rules, "git.corp", 443, "10.1.2.3")).toBeUndefined();
    expect(checkResolved(rules, "localhost", 8080, "127.0.0.1")).toBeUndefined();
    expect(checkResolved(rules, "localhost", 8080, "10.0.0.1")).toContain("private network");
    // "*" names no host: localhost through a wildcard is loopback like any other name.
    expect(checkResolved(rules, "localhost", 9090, "127.0.0.1")).toContain("loopback");
    expect(checkResolved(rules, "example.com", 443, "203.0.113.9")).toBe(
      '203.0.113.9 is denied by "203.0.113.9"',
    );
  });
});

/** Sends `bytes` to a Unix socket and returns everything received until the proxy closes. */
function exchange(socketPath: string, bytes: string | Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(socketPath, () => socket.write(bytes));
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("error", (error: NodeJS.ErrnoException) =>
      error.code === "ECONNRESET" || error.code === "EPIPE" ? resolve(Buffer.concat(chunks)) : reject(error),
    );
    socket.on("close", () => resolve(Buffer.concat(chunks)));
  });
}

/** A GET through the HTTP proxy's socket, absolute-form, as curl sends with http_proxy. */
function proxiedGet(socketPath: string, url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      { socketPath, path: url, headers: { host: new URL(url).host } },
      (response) => {
        let body = "";
        response.setEncoding("utf8").on("data", (text: string) => {
          body += text;
        });
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    request.on("error", reject);
    request.end();
  });
}

/** SOCKS5 CONNECT to a domain name, raw bytes; resolves with the reply code. */
async function socksConnect(socketPath: string, host: string, port: number): Promise<number> {
  const name = Buffer.from(host);
  const portBytes = Buffer.from([port >> 8, port & 0xff]);
  const request = Buffer.concat([
    Buffer.from([5, 1, 0]),
    Buffer.from([5, 1, 0, 3, name.length]),
    name,
    portBytes,
  ]);
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath, () => socket.write(request));
    let received = Buffer.alloc(0);
    socket.on("data", (chunk) => {
      received = Buffer.concat([received, chunk]);
      if (received.length >= 4) {
        socket.destroy();
        resolve(received[3]!);
      }
    });
    socket.on("error", reject);
    socket.on("close", () => (received.length < 4 ? reject(new Error("closed early")) : undefined));
  });
}

describe("the network proxy", () => {
  let proxy: NetworkProxy | undefined;
  let target: { port: number; close: () => Promise<void> } | undefined;
  afterEach(async () => {
    await proxy?.close();
    await target?.close();
    proxy = undefined;
    target = undefined;
  });

  async function start(
    allow: string[],
    options: {
      deny?: string[];
      lookup?: (host: string) => Promise<string[]>;
      ask?: (destination: unknown, signal: AbortSignal) => Promise<boolean>;
      handshakeMs?: number;
    } = {},
  ) {
    const dir = await tempDir("tern-proxy-");
    const sockets = { http: path.join(dir, "http.sock"), socks: path.join(dir, "socks.sock") };
    proxy = await startNetworkProxy({
      httpSocket: sockets.http,
      socksSocket: sockets.socks,
      rules: parseHostRules(allow, options.deny),
      ...(options.lookup ? { lookup: options.lookup } : {}),
      ...(options.ask ? { ask: options.ask } : {}),
      ...(options.handshakeMs ? { handshakeMs: options.handshakeMs } : {}),
    });
    return sockets;
  }

  it("forwards an allowed request and refuses an unlisted one with 403, the host and the reason", async () => {
    target = await loopbackHttp("hello");
    const sockets = await start([`127.0.0.1:${target.port}`]);
    expect(await proxiedGet(sockets.http, `http://127.0.0.1:${target.port}/x`)).toEqual({
      status: 200,
      body: "hello",
    });
    const refused = await proxiedGet(sockets.http, "http://example.com/");
    expect(refused.status).toBe(403);
    expect(refused.body).toBe("tern sandbox: connection to example.com:80 refused: not in the allow-list\n");
    expect(await socksConnect(sockets.socks, "example.com", 443)).toBe(2);
    expect(proxy!.refusals()).toEqual([
      { host: "example.com", port: 80, reason: "not in the allow-list" },
      { host: "example.com", port: 443, reason: "not in the allow-list" },
    ]);
  });

  it("resolves a name once and connects to the address it checked", async () => {
    target = await loopbackHttp("via the checked address");
    const asked: string[] = [];
    const sockets = await start([`svc.test:${target.port}`, "127.0.0.1"], {
      lookup: async (host) => {
        asked.push(host);
        return ["127.0.0.1"];
      },
    });
    const reply = await proxiedGet(sockets.http, `http://svc.test:${target.port}/`);
    expect(reply).toEqual({ status: 200, body: "via the checked address" });
    expect(asked).toEqual(["svc.test"]);
  });

  it("refuses DNS rebinding: an allowed name that resolves to loopback", async () => {
    target = await loopbackHttp("internal");
    const sockets = await start(["*.rebind.test", "api.rebind.test"], {
      lookup: async () => ["93.184.215.14", "127.0.0.1"],
    });
    const reply = await proxiedGet(sockets.http, `http://api.rebind.test:${target.port}/`);
    expect(reply.status).toBe(403);
    expect(reply.body).toContain("127.0.0.1 is a loopback address, which the allow-list does not name");
    expect(await socksConnect(sockets.socks, "x.rebind.test", target.port)).toBe(2);
  });

  it("asks about an unlisted host (never a denied one); yes lets it through, no refuses", async () => {
    target = await loopbackHttp("asked");
    const answers = [true, false];
    const questions: number[] = [];
    const sockets = await start(["127.0.0.1:1"], {
      deny: ["denied.test"],
      ask: async () => {
        questions.push(questions.length);
        return answers.shift() ?? false;
      },
    });
    expect(await proxiedGet(sockets.http, `http://127.0.0.1:${target.port}/`)).toEqual({
      status: 403,
      body: expect.stringContaining("loopback"),
    });
    const no = await proxiedGet(sockets.http, "http://example.com/");
    expect(no.body).toContain("not in the allow-list, and the user did not allow it");
    expect((await proxiedGet(sockets.http, "http://denied.test/")).body).toContain('denied by "denied.test"');
    expect(questions).toEqual([0, 1]);
  });

  it("withdraws a question still open when the proxy closes (the command ended)", async () => {
    let withdrawn = false;
    let asked = false;
    const sockets = await start([], {
      ask: (_destination, signal) =>
        new Promise((resolve) => {
          asked = true;
          signal.addEventListener("abort", () => {
            withdrawn = true;
            resolve(false);
          });
        }),
    });
    const pending = proxiedGet(sockets.http, "http://example.com/").catch((error: Error) => error);
    await waitFor(() => (asked ? true : undefined));
    await proxy!.close();
    proxy = undefined;
    expect(withdrawn).toBe(true);
    expect(await pending).toBeInstanceOf(Error);
  });

  it("answers malformed HTTP with 400 or 431 and keeps serving", async () => {
    target = await loopbackHttp("still here");
    const sockets = await start([`127.0.0.1:${target.port}`]);
    expect((await exchange(sockets.http, "\x00\x01garbage\r\n\r\n")).toString()).toMatch(/^HTTP\/1\.1 400 /);
    const huge = `GET http://127.0.0.1:${target.port}/ HTTP/1.1\r\nX: ${"a".repeat(64 * 1024)}\r\n\r\n`;
    expect((await exchange(sockets.http, huge)).toString()).toMatch(/^HTTP\/1\.1 431 /);
    expect((await exchange(sockets.http, "CONNECT nowhere HTTP/1.1\r\n\r\n")).toString()).toContain(
      "CONNECT needs HOST:PORT",
    );
    expect((await exchange(sockets.http, "GET /relative HTTP/1.1\r\nHost: x\r\n\r\n")).toString()).toContain(
      "absolute http:// URL",
    );
    expect((await exchange(sockets.http, "GET https://x/ HTTP/1.1\r\nHost: x\r\n\r\n")).toString()).toContain(
      "only http:// is forwarded",
    );
    expect(await proxiedGet(sockets.http, `http://127.0.0.1:${target.port}/`)).toEqual({
      status: 200,
      body: "still here",
    });
  });

  it("closes a bad SOCKS greeting, refuses unsupported auth and commands, and keeps serving", async () => {
    target = await loopbackHttp("socks ok");
    const sockets = await start([`127.0.0.1:${target.port}`], { handshakeMs: 200 });
    expect((await exchange(sockets.socks, Buffer.from([4, 1, 0, 80, 127, 0, 0, 1, 0]))).length).toBe(0);
    expect([...(await exchange(sockets.socks, Buffer.from([5, 1, 2])))]).toEqual([5, 0xff]);
    // BIND (2) is not supported: "command not supported".
    const bind = await exchange(sockets.socks, Buffer.from([5, 1, 0, 5, 2, 0, 1, 127, 0, 0, 1, 0, 80]));
    expect([...bind]).toEqual([5, 0, 5, 7]);
    // A greeting cut short is dropped at the (injected) handshake ceiling instead of hanging.
    expect((await exchange(sockets.socks, Buffer.from([5, 3, 0]))).length).toBe(0);
    expect(await socksConnect(sockets.socks, "127.0.0.1", target.port)).toBe(0);
  });
});
