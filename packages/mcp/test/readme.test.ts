// The README's usage example, run as written against the memory server from a project .mcp.json.

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent } from "@tern/agent";
import { createFaux, fauxToolCall } from "@tern/ai";
import { expect, it } from "vitest";
import { loadMcpConfig, McpManager } from "../src/index.js";
import { memoryBin } from "./support/servers.js";

it("runs the README example", async () => {
  const projectDir = mkdtempSync(join(tmpdir(), "tern-mcp-readme-"));
  const memoryFile = join(projectDir, "memory.jsonl");
  writeFileSync(
    join(projectDir, ".mcp.json"),
    JSON.stringify({
      mcpServers: {
        memory: { command: process.execPath, args: [memoryBin], env: { MEMORY_FILE_PATH: memoryFile } },
      },
    }),
  );
  const home = join(projectDir, "home");
  const lines: string[] = [];
  const problems: string[] = [];
  const console = {
    log: (...parts: unknown[]) => lines.push(parts.map(String).join(" ")),
    error: (text: string) => problems.push(text),
  };

  // --- README example start
  // Reads <home>/mcp.json and <projectDir>/.mcp.json, `${VAR}` expanded from the env you pass;
  // malformed entries are in config.problems.
  const config = await loadMcpConfig({ projectDir, home, env: process.env });
  for (const problem of config.problems)
    console.error(`${problem.file} ${problem.server ?? ""}: ${problem.message}`);
  const mcp = new McpManager(Object.fromEntries(config.servers.map((entry) => [entry.name, entry.config])));
  await mcp.waitForStartup(); // at most startupTimeoutMs per server; slower ones join later

  // A scripted model; any @tern/ai model works the same way.
  const faux = createFaux({
    replies: [{ content: [fauxToolCall("mcp__memory__read_graph", {})] }, "The graph is empty."],
  });
  const agent = new Agent({
    model: faux.model,
    tools: mcp.tools(),
    prepareNextTurn: mcp.prepareNextTurn, // late servers, restarts and tools/list_changed between turns
  });
  const result = await agent.prompt("What do you remember?");
  console.log(
    result.answer,
    mcp.status().map((server) => `${server.name}: ${server.state}`),
  );
  await mcp.close();
  // --- README example end

  expect(problems).toEqual([]);
  expect(lines).toEqual(["The graph is empty. memory: ready"]);
  const toolResult = faux.requests[1]!.context.messages.find((m) => m.role === "toolResult");
  expect(toolResult).toMatchObject({
    isError: false,
    content: [{ type: "text", text: expect.stringContaining("entities") }],
  });
});
