// Headers from the configuration reach a remote server: with the right token the server's tools
// work; without it the server is failed with the HTTP status in its error (no SSE fallback on 401).

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpManager } from "../src/index.js";
import { type RunningHttpServer, startAuthServer } from "./support/servers.js";

describe("a remote server that wants a bearer token", () => {
  let server: RunningHttpServer;
  const managers: McpManager[] = [];

  beforeAll(async () => {
    server = await startAuthServer("s3cret");
  });

  afterAll(async () => {
    await Promise.all(managers.map((manager) => manager.close()));
    await server?.stop();
  });

  function manage(headers: Record<string, string>): McpManager {
    const manager = new McpManager({ remote: { type: "http", url: server.url, headers } });
    managers.push(manager);
    return manager;
  }

  it("works with the configured Authorization header", async () => {
    const manager = manage({ Authorization: "Bearer s3cret" });
    const [status] = await manager.waitForStartup();
    expect(status).toMatchObject({ state: "ready", transport: "http" });
    const whoami = manager.tools().find((tool) => tool.name === "mcp__remote__whoami")!;
    const result = await whoami.execute(
      {},
      { signal: new AbortController().signal, toolCallId: "w", onUpdate: async () => {} },
    );
    expect(result).toMatchObject({
      content: [{ type: "text", text: "an authorised caller" }],
      isError: false,
    });
  });

  it("a remote server that stops answering gives the call a clean error and is reconnected, then failed", async () => {
    const own = await startAuthServer("t");
    const manager = new McpManager(
      { gone: { type: "http", url: own.url, headers: { Authorization: "Bearer t" } } },
      { restart: { baseDelayMs: 10, maxAttempts: 2 } },
    );
    managers.push(manager);
    await manager.waitForStartup();
    const whoami = manager.tools()[0]!;
    await own.stop();
    const result = await whoami.execute(
      {},
      { signal: new AbortController().signal, toolCallId: "w", onUpdate: async () => {} },
    );
    expect(result).toMatchObject({ isError: true });
    expect(String((result as { content: unknown }).content)).toMatch(
      /"gone": the server could not be reached .*reconnecting/,
    );
    await new Promise<void>((resolve) => {
      const check = () => manager.status()[0]!.state === "failed" && resolve();
      manager.onChange(check);
      check();
    });
    expect(manager.status()[0]).toMatchObject({ state: "failed", restarts: 2 });
  });

  it("fails clearly without it", async () => {
    const manager = manage({});
    const [status] = await manager.waitForStartup();
    expect(status!.state).toBe("failed");
    expect(status!.error).toContain("401");
    expect(manager.tools()).toEqual([]);
  });
});
