// The filesystem and memory reference servers from npm, configured through a real `.mcp.json`
// and driven by a scripted model through the agent loop: their effects land on disk.

import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fauxToolCall } from "@tern/ai/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadMcpConfig, McpManager, type McpServerConfig } from "../src/index.js";
import { runScripted, textOf } from "./support/run.js";
import { filesystemBin, memoryBin } from "./support/servers.js";

describe("the filesystem and memory servers from a project .mcp.json", () => {
  let manager: McpManager;
  let workspace: string;
  let memoryFile: string;

  beforeAll(async () => {
    const project = realpathSync(mkdtempSync(join(tmpdir(), "tern-mcp-project-")));
    workspace = join(project, "files");
    mkdirSync(workspace);
    memoryFile = join(project, "memory.jsonl");
    writeFileSync(
      join(project, ".mcp.json"),
      JSON.stringify({
        mcpServers: {
          // biome-ignore lint/suspicious/noTemplateCurlyInString: the configuration's own ${VAR} syntax
          fs: { command: process.execPath, args: [filesystemBin, "${WORKSPACE}"] },
          memory: { command: process.execPath, args: [memoryBin], env: { MEMORY_FILE_PATH: memoryFile } },
        },
      }),
    );
    const config = await loadMcpConfig({
      projectDir: project,
      home: join(project, "no-home"),
      env: { WORKSPACE: workspace },
    });
    expect(config.problems).toEqual([]);
    const servers: Record<string, McpServerConfig> = {};
    for (const entry of config.servers) servers[entry.name] = entry.config;
    manager = new McpManager(servers, { startupTimeoutMs: 15_000 });
    const status = await manager.waitForStartup();
    expect(status.map((s) => [s.name, s.state])).toEqual([
      ["fs", "ready"],
      ["memory", "ready"],
    ]);
  });

  afterAll(async () => {
    await manager?.close();
  });

  it("writes, reads and lists files in the allowed folder, and refuses paths outside it", async () => {
    const file = join(workspace, "note.txt");
    const run = await runScripted(manager.tools(), [
      { content: [fauxToolCall("mcp__fs__write_file", { path: file, content: "hello from tern" }, "w")] },
      {
        content: [
          fauxToolCall("mcp__fs__read_text_file", { path: file }, "r"),
          fauxToolCall("mcp__fs__list_directory", { path: workspace }, "l"),
          fauxToolCall("mcp__fs__read_text_file", { path: "/etc/hostname" }, "outside"),
        ],
      },
      "done",
    ]);
    expect(readFileSync(file, "utf8")).toBe("hello from tern");
    const [write, read, list, outside] = run.results;
    expect(write!.isError).toBe(false);
    expect(textOf(read)).toBe("hello from tern");
    expect(textOf(list)).toContain("[FILE] note.txt");
    expect(outside!.isError).toBe(true);
    expect(textOf(outside)).toMatch(/Access denied/i);
    const kinds = Object.fromEntries(manager.tools().map((tool) => [tool.name, tool.kind]));
    expect(kinds).toMatchObject({ mcp__fs__read_text_file: "read", mcp__fs__write_file: "exec" });
  });

  it("remembers entities in the memory server's file", async () => {
    const run = await runScripted(manager.tools(), [
      {
        content: [
          fauxToolCall(
            "mcp__memory__create_entities",
            { entities: [{ name: "tern", entityType: "project", observations: ["speaks MCP"] }] },
            "c",
          ),
        ],
      },
      { content: [fauxToolCall("mcp__memory__search_nodes", { query: "tern" }, "s")] },
      "done",
    ]);
    expect(run.results.every((result) => !result.isError)).toBe(true);
    expect(textOf(run.results[1])).toContain("speaks MCP");
    expect(existsSync(memoryFile)).toBe(true);
    expect(readFileSync(memoryFile, "utf8")).toContain("speaks MCP");
  });
});
