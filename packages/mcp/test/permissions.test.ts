// MCP tools under @tern/tools' permission policy: `kind` ("read" from readOnlyHint, else "exec")
// lets read-only mode run the read-only tools and deny the rest, and `mcp__<server>__*` rules
// match the MCP names.

import { HookRegistry } from "@tern/agent";
import { fauxToolCall } from "@tern/ai/testing";
import { installPermissions } from "@tern/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpManager } from "../src/index.js";
import { runScripted, textOf } from "./support/run.js";
import { fault } from "./support/servers.js";

describe("MCP tools and permissions", () => {
  let manager: McpManager;

  beforeAll(async () => {
    manager = new McpManager({ f: fault("tools") });
    await manager.waitForStartup();
  });

  afterAll(async () => {
    await manager?.close();
  });

  it("read-only mode runs tools marked read-only and denies the others", async () => {
    const hooks = new HookRegistry();
    installPermissions(hooks, { mode: "read-only", tools: manager.tools() });
    const run = await runScripted(
      manager.tools(),
      [
        {
          content: [
            fauxToolCall("mcp__f__look", {}, "look"),
            fauxToolCall("mcp__f__echo", { text: "x" }, "echo"),
          ],
        },
        "done",
      ],
      { hooks },
    );
    expect(textOf(run.results[0])).toBe("looked");
    expect(run.results[1]!.isError).toBe(true);
    expect(textOf(run.results[1])).toContain("read-only mode");
  });

  it("rules name MCP tools by their mcp__ names", async () => {
    const hooks = new HookRegistry();
    installPermissions(hooks, {
      mode: "ask",
      tools: manager.tools(),
      allow: ["mcp__f__*"],
      deny: ["mcp__f__fail"],
    });
    const run = await runScripted(
      manager.tools(),
      [
        {
          content: [
            fauxToolCall("mcp__f__echo", { text: "x" }, "echo"),
            fauxToolCall("mcp__f__fail", {}, "fail"),
          ],
        },
        "done",
      ],
      { hooks },
    );
    expect(textOf(run.results[0])).toBe("echo: x");
    expect(textOf(run.results[1])).toContain('"mcp__f__fail" denies it');
  });

  it("judges tools by their kind when the call is checked, not when the policy was built", async () => {
    const late = new McpManager({ f: fault("tools") });
    try {
      const hooks = new HookRegistry();
      // Built before the server is up: the policy has never seen its tools.
      installPermissions(hooks, { mode: "read-only", tools: [], currentTools: () => late.tools() });
      await late.waitForStartup();
      const run = await runScripted(
        late.tools(),
        [
          {
            content: [
              fauxToolCall("mcp__f__look", {}, "look"),
              fauxToolCall("mcp__f__echo", { text: "x" }, "echo"),
            ],
          },
          "done",
        ],
        { hooks },
      );
      expect(textOf(run.results[0])).toBe("looked");
      expect(textOf(run.results[1])).toContain("read-only mode");
      expect(textOf(run.results[1])).toContain("mcp__f__look");
    } finally {
      await late.close();
    }
  });
});
