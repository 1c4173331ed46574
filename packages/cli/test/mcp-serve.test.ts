// `tern mcp serve` through the official MCP SDK client: the client spawns the real `tern` bundle
// over stdio, lists its tool and calls it against a scripted model on loopback. The answer comes
// back with progress notifications on the way; the flags are a ceiling the call cannot lift; a
// workspace outside the allowed roots and a bad argument are the call's errors.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { contentText, type ScriptServer, serveScript, wireMessages } from "@tern/ai/testing";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { faultServer, nodeServer } from "../../mcp/test/support/servers.js";
import { textReply, toolReply } from "./support/replies.js";
import { scriptedModelEnv } from "./support/scripted-model.js";
import { ensureBuilt, runTern, TERN_JS, tempDir, ternEnv } from "./support/tern.js";

beforeAll(ensureBuilt);

let model: ScriptServer | undefined;
let client: Client | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
  await model?.close();
  model = undefined;
});

async function connect(
  args: string[],
  prepareHome: (home: string) => void = () => {},
  extraEnv: Record<string, string> = {},
) {
  const home = tempDir();
  const work = tempDir();
  prepareHome(home);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [TERN_JS, "mcp", "serve", "--cwd", work, ...args],
    env: scriptedModelEnv(model!, { TERN_HOME: home, ...extraEnv }) as Record<string, string>,
    stderr: "pipe",
  });
  client = new Client({ name: "tern-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, work, home };
}

type TextResult = {
  content: { type: string; text: string }[];
  isError?: boolean;
  structuredContent?: unknown;
};

describe("tern mcp serve", () => {
  it("answers initialize and tools/list while a configured MCP server hangs at start", async () => {
    // The MCP servers of the workspace start with a task's runtime, never before the host's first
    // request: a server that never comes up cannot hold `initialize` back. No clock is involved:
    // with MCP_TIMEOUT at ten minutes, answers that waited for the hanging server would come after
    // the test's own ceiling.
    model = await serveScript([]);
    const { client } = await connect(
      [],
      (home) =>
        writeFileSync(
          join(home, "mcp.json"),
          JSON.stringify({ mcpServers: { stuck: nodeServer(faultServer, ["hang"]) } }),
        ),
      { MCP_TIMEOUT: "600000" },
    );
    expect(client.getServerVersion()?.name).toBe("tern");
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["run_task"]);
  });

  it("runs a task in the workspace and returns the answer, with progress", async () => {
    model = await serveScript([
      toolReply([{ name: "write", args: { path: "hello.txt", content: "hi\n" } }]),
      textReply("Wrote hello.txt."),
    ]);
    const { client, work } = await connect(["--mode", "accept-edits"]);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["run_task"]);
    expect(tools[0]!.inputSchema.required).toEqual(["prompt"]);
    const progress: string[] = [];
    const result = (await client.callTool(
      { name: "run_task", arguments: { prompt: "write hello" } },
      undefined,
      {
        onprogress: (note) => progress.push(note.message ?? ""),
      },
    )) as TextResult;
    expect(result.isError).toBeFalsy();
    expect(result.content[0]!.text).toBe("Wrote hello.txt.");
    expect(result.structuredContent).toMatchObject({ stopReason: "stop", cwd: work, mode: "accept-edits" });
    expect(readFileSync(join(work, "hello.txt"), "utf8")).toBe("hi\n");
    expect(progress).toEqual(["turn 1", "calling write", "turn 2"]);
    expect(contentText(wireMessages(model!.requests[0]!.body).at(-1))).toBe("write hello");
  });

  it("lets a call be stricter than the flags, never looser", async () => {
    model = await serveScript([
      toolReply([{ name: "write", args: { path: "no.txt", content: "x" } }]),
      textReply("Could not write."),
    ]);
    const { client, work } = await connect(["--mode", "accept-edits"]);
    const looser = (await client.callTool({
      name: "run_task",
      arguments: { prompt: "anything", mode: "bypass" },
    })) as TextResult;
    expect(looser.isError).toBe(true);
    expect(looser.content[0]!.text).toMatch(
      /"bypass" is more permissive than this server allows \("accept-edits"\)/,
    );
    expect(model!.requests).toHaveLength(0);

    const stricter = (await client.callTool({
      name: "run_task",
      arguments: { prompt: "write no", mode: "read-only" },
    })) as TextResult;
    expect(stricter.content[0]!.text).toBe("Could not write.");
    expect(existsSync(join(work, "no.txt"))).toBe(false);
    const told = wireMessages(model!.requests[1]!.body).find((message) => message.role === "tool");
    expect(contentText(told)).toMatch(/read-only mode/);
  });

  it("refuses a workspace outside its roots, and a call without a prompt", async () => {
    model = await serveScript([]);
    const elsewhere = tempDir();
    const { client } = await connect([]);
    const outside = (await client.callTool({
      name: "run_task",
      arguments: { prompt: "look", cwd: elsewhere },
    })) as TextResult;
    expect(outside.isError).toBe(true);
    expect(outside.content[0]!.text).toMatch(/outside the directories this server may work in/);
    const empty = (await client.callTool({ name: "run_task", arguments: { prompt: "" } })) as TextResult;
    expect(empty.isError).toBe(true);
    expect(model!.requests).toHaveLength(0);
  });

  it("works in another directory given with --allow-root", async () => {
    model = await serveScript([textReply("Seen.")]);
    const other = tempDir();
    const { client } = await connect(["--allow-root", other]);
    const result = (await client.callTool({
      name: "run_task",
      arguments: { prompt: "look", cwd: other },
    })) as TextResult;
    expect(result.content[0]!.text).toBe("Seen.");
    expect(result.structuredContent).toMatchObject({ cwd: other, mode: "ask" });
  });

  it("aborts the run when the host cancels the request, and serves the next one", async () => {
    model = await serveScript([
      // Slow enough that the cancellation arrives mid-stream.
      textReply("a very long answer that streams slowly ".repeat(20), { delayMs: 200, chunkSize: 200 }),
      textReply("Second."),
    ]);
    const { client, home } = await connect(["--mode", "read-only"]);
    const controller = new AbortController();
    const first = client.callTool({ name: "run_task", arguments: { prompt: "slow" } }, undefined, {
      signal: controller.signal,
      onprogress: () => controller.abort(),
    });
    await expect(first).rejects.toThrow(/abort/i);
    const second = (await client.callTool({ name: "run_task", arguments: { prompt: "next" } })) as TextResult;
    // Whether the first run's model request went out before the cancellation decides which reply
    // the second run gets; either way it gets a whole answer.
    expect(second.isError).toBeFalsy();
    expect(["Second.", "a very long answer that streams slowly ".repeat(20)]).toContain(
      second.content[0]!.text,
    );
    // The first run was stopped and saved as interrupted, not left running.
    const sessions = await runTern(["sessions", "ls", "--all", "--json"], {
      env: ternEnv({ TERN_HOME: home }),
    });
    const slow = (JSON.parse(sessions.stdout) as { title: string; path: string }[]).find(
      (s) => s.title === "slow",
    )!;
    expect(readFileSync(slow.path, "utf8")).toMatch(/"stopReason":"aborted"/);
  });

  it("answers a request over the size limit with an error and serves the next one", async () => {
    model = await serveScript([textReply("Two megabytes read."), textReply("Still here.")]);
    const { client } = await connect([]);
    // The sizes: 2 MB is under the default limit (8 MiB), 20 MB over it.
    const fits = (await client.callTool({
      name: "run_task",
      arguments: { prompt: `read this: ${"a".repeat(2_000_000)}` },
    })) as TextResult;
    expect(fits.content[0]!.text).toBe("Two megabytes read.");
    const huge = client.callTool({ name: "run_task", arguments: { prompt: "b".repeat(20_000_000) } });
    await expect(huge).rejects.toMatchObject({ code: -32600 });
    await expect(huge).rejects.toThrow(/Request too large: \d+ bytes, over the 8388608-byte limit/);
    const next = (await client.callTool({ name: "run_task", arguments: { prompt: "next" } })) as TextResult;
    expect(next.content[0]!.text).toBe("Still here.");
    expect(model!.requests).toHaveLength(2);
  });

  it("takes --max-message as its limit", async () => {
    model = await serveScript([textReply("Small enough.")]);
    const { client } = await connect(["--max-message", "5000"]);
    await expect(
      client.callTool({ name: "run_task", arguments: { prompt: "c".repeat(6000) } }),
    ).rejects.toThrow(/over the 5000-byte limit/);
    const small = (await client.callTool({ name: "run_task", arguments: { prompt: "hi" } })) as TextResult;
    expect(small.content[0]!.text).toBe("Small enough.");
  });
});
