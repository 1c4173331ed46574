// Project MCP servers in `tern chat` on a real terminal (tmux): chat asks once per server before
// starting any, remembers the yes for the project, `/mcp` shows what runs, and the model calls an
// approved server's tool. A later `tern run` without a terminal starts the approved server and
// skips the refused one.

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { contentText, wireMessages } from "@tern/ai/testing";
import { beforeAll, expect } from "vitest";
import { faultServer, memoryBin, nodeServer } from "../../mcp/test/support/servers.js";
import { startChat, terminalIt } from "./support/chat-terminal.js";
import { textReply, toolReply } from "./support/replies.js";
import { scriptedModelEnv, startScriptedModel } from "./support/scripted-model.js";
import { ensureBuilt, runTern, tempDir } from "./support/tern.js";

beforeAll(ensureBuilt);

terminalIt(
  "asks about each project server once, shows them with /mcp, and uses the approved one",
  async () => {
    const home = tempDir();
    const work = tempDir();
    writeFileSync(
      join(work, ".mcp.json"),
      JSON.stringify({
        mcpServers: {
          memory: nodeServer(memoryBin, [], { MEMORY_FILE_PATH: join(work, "m.jsonl") }),
          f: nodeServer(faultServer, ["tools"]),
        },
      }),
    );
    const server = await startScriptedModel([
      toolReply([{ name: "mcp__memory__read_graph", args: {} }]),
      textReply("The graph is empty."),
      textReply("from run"),
    ]);
    const env = scriptedModelEnv(server, { TERN_HOME: home });
    const tmux = startChat(["--tools", "none"], env, work);
    await tmux.waitFor(
      /asks to start 2 MCP servers\. They run with your privileges, outside the bash sandbox/,
    );
    await tmux.waitFor(
      /memory: .*server-memory.*\n.*Start it \(remembered for this project\)\? \[y\]es \/ \[n\]o/,
    );
    tmux.type("y", "Enter");
    await tmux.waitFor(/f: .*fault-server\.mjs tools\n.*Start it/);
    tmux.type("n", "Enter");
    await tmux.waitFor(/tern chat · llamacpp\/test-model/);
    expect(tmux.capture()).toMatch(/MCP server "f" from .*was not started: you did not approve it/);

    tmux.type("what do you remember?", "Enter");
    await tmux.waitFor(/The graph is empty\./);
    const results = wireMessages(server.requests[1]!.body).filter((message) => message.role === "tool");
    expect(contentText(results[0])).toContain('"entities"');

    // The first turn waited for the servers: /mcp shows memory up, and no trace of f.
    tmux.type("/mcp", "Enter");
    await tmux.waitFor(/memory {2}ready/);
    expect(tmux.capture()).toMatch(/mcp__memory__read_graph {2}\(read-only\)/);
    expect(tmux.capture()).not.toMatch(/^f {2}/m);
    tmux.type("/exit", "Enter");
    expect(await tmux.exitCode()).toBe(0);

    // Remembered: a run without a terminal starts memory and still skips f.
    const result = await runTern(["run", "--tools", "none", "again"], { env, cwd: work });
    expect(result.code).toBe(0);
    expect(result.stderr).not.toMatch(/"memory" .*was not started/);
    expect(result.stderr).toMatch(/MCP server "f" .*was not started: .*tern mcp approve f/);
    const tools = (server.requests[2]!.body as { tools?: { function: { name: string } }[] }).tools ?? [];
    expect(tools.map((tool) => tool.function.name)).toContain("mcp__memory__read_graph");
  },
);
