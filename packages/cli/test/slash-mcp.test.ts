// `/mcp` in tern chat: the servers of the session's runtime (real MCP servers: the fault server
// of @tern/mcp's tests, working and exiting at start), their tools, and `/mcp retry NAME`.
import { McpManager } from "@tern/mcp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { faultServer, nodeServer } from "../../mcp/test/support/servers.js";
import { runSlash, SLASH_HELP, type SlashContext } from "../src/chat/slash.js";
import { createStyle } from "../src/render/style.js";

let manager: McpManager;

beforeAll(async () => {
  manager = new McpManager({
    dead: nodeServer(faultServer, ["exit"]),
    f: nodeServer(faultServer, ["tools"]),
  });
  await manager.waitForStartup();
});

afterAll(async () => {
  await manager?.close();
});

function context(mcp: McpManager | undefined, busy = false) {
  const printed: string[] = [];
  const ctx = {
    style: createStyle(false),
    busy,
    runtime: mcp ? { mcp } : {},
    print: (text: string) => printed.push(text),
  } as unknown as SlashContext;
  return { ctx, printed };
}

describe("/mcp", () => {
  it("lists each server's state, error and tools, also while the agent works", async () => {
    const { ctx, printed } = context(manager, true);
    await runSlash("/mcp", ctx);
    expect(printed).toContain("dead  failed");
    expect(printed.find((line) => line.startsWith("  error:"))).toMatch(/no API key configured/);
    expect(printed.find((line) => line.startsWith("f  ready"))).toMatch(/MCP \d{4}-\d{2}-\d{2}/);
    expect(printed).toContain("  mcp__f__look  (read-only)");
    expect(printed).toContain("  mcp__f__echo");
    expect(SLASH_HELP.some((line) => line.startsWith("/mcp"))).toBe(true);
  });

  it("retries a failed server by name, and names unknown ones", async () => {
    const { ctx, printed } = context(manager);
    await runSlash("/mcp retry nope", ctx);
    await runSlash("/mcp retry dead", ctx);
    await runSlash("/mcp restart", ctx);
    expect(printed).toEqual([
      'no MCP server "nope"; /mcp lists them',
      "retrying dead; its tools join the next turn when it is up",
      "usage: /mcp, or /mcp retry NAME",
    ]);
  });

  it("says where servers come from when there are none", async () => {
    const { ctx, printed } = context(undefined);
    await runSlash("/mcp", ctx);
    expect(printed[0]).toMatch(/^no MCP servers \(\.mcp\.json/);
  });
});
