// Version negotiation with real servers: the SDK client asks for the newest MCP revision it knows;
// a server that speaks it gets it, a server that only speaks an older revision still works at
// that one, and the negotiated version is in the server's status.

import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_CONNECT_TIMEOUT_MS } from "../src/connection.js";
import { McpManager } from "../src/index.js";
import { fault } from "./support/servers.js";

const managers: McpManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.close()));
});

describe("MCP protocol version", () => {
  it("is the newest with a server that offers it, an older one with a server pinned to it", async () => {
    // The wait ends when both servers settle; the ceiling is the connect ceiling, not the 10 s
    // startup default a loaded machine can miss (the state would then read "starting").
    const manager = new McpManager(
      { current: fault("tools"), old: fault("tools", { PROTOCOL_VERSION: "2024-11-05" }) },
      { startupTimeoutMs: DEFAULT_CONNECT_TIMEOUT_MS },
    );
    managers.push(manager);
    const statuses = await manager.waitForStartup();
    expect(LATEST_PROTOCOL_VERSION).toBe("2025-11-25");
    expect(statuses.map((s) => [s.name, s.state, s.protocolVersion])).toEqual([
      ["current", "ready", LATEST_PROTOCOL_VERSION],
      ["old", "ready", "2024-11-05"],
    ]);
    const echo = manager.tools().find((tool) => tool.name === "mcp__old__echo")!;
    const result = await echo.execute(
      { text: "hi" },
      { signal: new AbortController().signal, toolCallId: "e", onUpdate: async () => {} },
    );
    expect(result).toMatchObject({ content: [{ type: "text", text: "echo: hi" }], isError: false });
  });

  it("a server answering a version the SDK does not know is failed with that reason", async () => {
    const manager = new McpManager({ future: fault("tools", { PROTOCOL_VERSION: "2099-01-01" }) });
    managers.push(manager);
    const [status] = await manager.waitForStartup();
    expect(status).toMatchObject({ state: "failed" });
    expect(status!.error).toContain("protocol version is not supported: 2099-01-01");
  });
});
