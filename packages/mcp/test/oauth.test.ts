// OAuth for a remote MCP server against a real authorization server (oauth2-mock-server) and a
// real streamable-HTTP MCP server that checks bearer tokens: login through the loopback redirect,
// tool calls with the stored token, refresh ahead of expiry (injected clock; a refused one is tried
// once) and on 401 during a call, a revoked refresh token naming `tern mcp login`, the files'
// modes, and bad input at each step (a wrong state, malformed metadata, an authorization server
// that is down).

import { mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { RemoteServerConfig } from "../src/config.js";
import { DEFAULT_CONNECT_TIMEOUT_MS } from "../src/connection.js";
import {
  loginMcpServer,
  logoutMcpServer,
  McpManager,
  type McpOAuthOptions,
  OAuthStore,
} from "../src/index.js";
import { listenForRedirect } from "../src/oauth-redirect.js";
import { followLogin, type OAuthFixture, startOAuthFixture } from "./support/oauth.js";

let fixture: OAuthFixture;
let dir: string;
const managers: McpManager[] = [];

beforeEach(async () => {
  fixture = await startOAuthFixture();
  dir = join(mkdtempSync(join(tmpdir(), "tern-oauth-")), "mcp-auth");
});
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.close()));
  await fixture.stop();
});

function config(): RemoteServerConfig {
  return { type: "http", url: fixture.url, headers: {} };
}

function options(extra: Partial<McpOAuthOptions> = {}): McpOAuthOptions & { secrets: Set<string> } {
  const secrets = new Set<string>();
  return { store: new OAuthStore(dir), onSecret: (value) => secrets.add(value), secrets, ...extra };
}

async function login(oauth: McpOAuthOptions = options()): Promise<void> {
  let browser: Promise<Response> | undefined;
  await loginMcpServer("remote", config(), {
    ...oauth,
    show: (url) => {
      browser = followLogin(url);
    },
    timeoutMs: 30_000,
  });
  const page = await browser!;
  expect(page.status).toBe(200);
}

function manage(oauth: McpOAuthOptions): McpManager {
  // A hang ceiling, not a deadline: on a loaded machine the first connect can take past the 10 s default.
  const manager = new McpManager(
    { remote: config() },
    { oauth, startupTimeoutMs: DEFAULT_CONNECT_TIMEOUT_MS },
  );
  managers.push(manager);
  return manager;
}

async function whoami(manager: McpManager) {
  const tool = manager.tools().find((t) => t.name === "mcp__remote__whoami")!;
  return tool.execute(
    {},
    { signal: new AbortController().signal, toolCallId: "w", onUpdate: async () => {} },
  );
}

describe("OAuth for remote MCP servers", () => {
  it("logs in with PKCE through the loopback redirect, stores tokens 0600 in a 0700 directory, and calls tools", async () => {
    const oauth = options();
    await login(oauth);
    expect(fixture.grants).toEqual(["authorization_code"]);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const [file] = readdirSync(dir);
    expect(statSync(join(dir, file!)).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(readFileSync(join(dir, file!), "utf8"));
    expect(oauth.secrets).toContain(stored.tokens.access_token);
    expect(oauth.secrets).toContain(stored.tokens.refresh_token);

    const manager = manage(oauth);
    const [status] = await manager.waitForStartup();
    expect(status).toMatchObject({ state: "ready", transport: "http" });
    expect(await whoami(manager)).toMatchObject({
      content: [{ text: "a logged-in caller" }],
      isError: false,
    });
    expect(fixture.accepted.every((token) => token === stored.tokens.access_token)).toBe(true);

    expect(await logoutMcpServer("remote", config(), oauth)).toBe(true);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("refreshes a token about to expire before sending it (injected clock)", async () => {
    let now = Date.now();
    const oauth = options({ now: () => now });
    await login(oauth);
    const manager = manage(oauth);
    await manager.waitForStartup();
    const first = fixture.accepted.at(-1)!;
    now += 3_600_000; // the mock server's tokens live an hour
    expect(await whoami(manager)).toMatchObject({ isError: false });
    expect(fixture.grants).toEqual(["authorization_code", "refresh_token"]);
    expect(fixture.accepted.at(-1)).not.toBe(first);
  });

  it("a refresh ahead of expiry that the authorization server refuses is tried once, not before every call", async () => {
    let now = Date.now();
    const oauth = options({ now: () => now });
    await login(oauth);
    const manager = manage(oauth);
    await manager.waitForStartup();
    const first = fixture.accepted.at(-1)!;
    fixture.revokeRefreshTokens();
    now += 3_600_000; // expiring by our clock; the resource server still takes the token
    expect(await whoami(manager)).toMatchObject({ isError: false });
    expect(await whoami(manager)).toMatchObject({ isError: false });
    expect(fixture.grants).toEqual(["authorization_code", "refresh_token"]);
    expect(fixture.accepted.at(-1)).toBe(first);
  });

  it("a token the server refuses mid-session is refreshed on the 401 and the call in progress succeeds", async () => {
    const oauth = options();
    await login(oauth);
    const manager = manage(oauth);
    await manager.waitForStartup();
    const first = fixture.accepted.at(-1)!;
    fixture.refuse(first);
    expect(await whoami(manager)).toMatchObject({
      content: [{ text: "a logged-in caller" }],
      isError: false,
    });
    expect(fixture.grants).toEqual(["authorization_code", "refresh_token"]);
    expect(fixture.accepted.at(-1)).not.toBe(first);
    expect(oauth.secrets).toContain(fixture.accepted.at(-1));
  });

  it("a revoked refresh token fails the call and the server with the error naming tern mcp login", async () => {
    const oauth = options();
    await login(oauth);
    const manager = manage(oauth);
    await manager.waitForStartup();
    fixture.refuse(fixture.accepted.at(-1)!);
    fixture.revokeRefreshTokens();
    const result = await whoami(manager);
    expect(result).toMatchObject({ isError: true });
    expect(String((result as { content: unknown }).content)).toContain("run `tern mcp login remote`");
    expect(manager.status()[0]).toMatchObject({ state: "failed" });
    expect(manager.status()[0]!.error).toContain("run `tern mcp login remote`");
  });

  it("a server never logged in to fails with its 401 and the hint to log in", async () => {
    const manager = manage(options());
    const [status] = await manager.waitForStartup();
    expect(status!.state).toBe("failed");
    expect(status!.error).toMatch(/HTTP 401.*run `tern mcp login remote`/);
  });
});

describe("OAuth bad input", () => {
  it("the loopback listener answers a wrong state or path with 400/404 and still takes the good redirect once", async () => {
    const listener = await listenForRedirect(30_000);
    const base = new URL(listener.url);
    expect((await fetch(`${listener.url}?code=c&state=wrong`)).status).toBe(400);
    expect((await fetch(`${listener.url}?code=c`)).status).toBe(400);
    expect((await fetch(`${base.origin}/other?code=c&state=${listener.state}`)).status).toBe(404);
    expect((await fetch(`${listener.url}?state=${listener.state}`)).status).toBe(400);
    expect((await fetch(`${listener.url}?code=good&state=${listener.state}`)).status).toBe(200);
    expect(await listener.code).toBe("good");
    await expect(fetch(`${listener.url}?code=again&state=${listener.state}`)).rejects.toThrow();
  });

  it("the listener closes at its ceiling with a clear error", async () => {
    const listener = await listenForRedirect(1);
    await expect(listener.code).rejects.toThrow(/no login arrived/);
    await expect(fetch(listener.url)).rejects.toThrow();
  });

  it("the authorization server's refusal ends the login with its error", async () => {
    const listener = await listenForRedirect(30_000);
    const refused = await fetch(`${listener.url}?error=access_denied&state=${listener.state}`);
    expect(refused.status).toBe(400);
    await expect(listener.code).rejects.toThrow(/refused: access_denied/);
  });

  it("malformed protected-resource metadata fails the login clearly and stores no tokens", async () => {
    fixture.breakMetadata("{not json");
    const oauth = options();
    await expect(
      loginMcpServer("remote", config(), { ...oauth, show: () => {}, timeoutMs: 30_000 }),
    ).rejects.toThrow(/^discovery or registration failed: HTTP 401/);
    expect((await oauth.store.read("remote", fixture.url)).tokens).toBeUndefined();
  });

  it("an authorization server that is down fails the login clearly", async () => {
    await fixture.stopAuthorizationServer();
    await expect(
      loginMcpServer("remote", config(), { ...options(), show: () => {}, timeoutMs: 30_000 }),
    ).rejects.toThrow(/^discovery or registration failed: fetch failed \(.*ECONNREFUSED/);
  });
});
