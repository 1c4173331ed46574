// Servers that go wrong, started for real: one that exits at start, one that hangs at start, one
// killed in the middle of a call, two whose tool names clash, one whose tool list changes, and a
// call aborted by the user. Each gives a clear state or a clean failed result, never a crash.

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AnyAgentTool } from "@tern/agent";
import { fauxToolCall } from "@tern/ai/testing";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_CONNECT_TIMEOUT_MS } from "../src/connection.js";
import { McpManager, type McpManagerOptions, type McpServerConfig } from "../src/index.js";
import { runScripted, textOf } from "./support/run.js";
import { fault, faultServer, nodeServer } from "./support/servers.js";

const managers: McpManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.close()));
});

function manage(servers: Record<string, McpServerConfig>, options: McpManagerOptions = {}): McpManager {
  // The startup limit is a hang ceiling here unless a test sets it: under load a healthy server
  // can take past the 10 s default to answer.
  const manager = new McpManager(servers, { startupTimeoutMs: DEFAULT_CONNECT_TIMEOUT_MS, ...options });
  managers.push(manager);
  return manager;
}

/** Resolves when `test` holds for the manager's status (checked on every change). */
function until(manager: McpManager, test: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    if (test()) return resolve();
    const stop = manager.onChange(() => {
      if (test()) {
        stop();
        resolve();
      }
    });
  });
}

function state(manager: McpManager, server: string): string | undefined {
  return manager.status().find((s) => s.name === server)?.state;
}

describe("MCP server faults", () => {
  it("a server that exits at start is failed with its stderr, and the others work", async () => {
    const manager = manage({ broken: fault("exit"), good: fault("tools") });
    const status = await manager.waitForStartup();
    const broken = status.find((s) => s.name === "broken")!;
    expect(broken.state).toBe("failed");
    expect(broken.error).toContain("no API key configured");
    expect(broken.tools).toEqual([]);
    expect(status.find((s) => s.name === "good")!.state).toBe("ready");
    const run = await runScripted(manager.tools(), [
      { content: [fauxToolCall("mcp__good__echo", { text: "hi" }, "c1")] },
      "done",
    ]);
    expect(textOf(run.results[0])).toBe("echo: hi");
  });

  it("a server that hangs at start does not hold up the others, then fails at the connect ceiling", async () => {
    // The test is the startup ceiling: the wait ends when the test aborts it, once "good" is up,
    // so whether "good" beats a timer on a loaded machine never decides the outcome.
    const manager = manage({ stuck: fault("hang"), good: fault("tools") });
    const ceiling = new AbortController();
    const waited = manager.waitForStartup(ceiling.signal);
    await until(manager, () => state(manager, "good") === "ready");
    ceiling.abort();
    const status = await waited;
    // The wait is over while "stuck" is still starting: the first turn would go on without it.
    expect(status.find((s) => s.name === "stuck")!.state).toBe("starting");
    expect(status.find((s) => s.name === "good")!.state).toBe("ready");
    expect(manager.tools().map((tool) => tool.name)).toContain("mcp__good__echo");

    // A server that never answers fails at any connect ceiling, so a small one decides nothing
    // but how long the test waits.
    const alone = manage({ stuck: fault("hang") }, { connectTimeoutMs: 200 });
    await alone.waitForStartup();
    expect(alone.status()).toMatchObject([{ name: "stuck", state: "failed" }]);
    expect(alone.status()[0]!.error).toContain("no answer to the MCP handshake");
  });

  it("close() while a server is still starting leaves it closed, not failed or restarting", async () => {
    // The extra argument tells this test's process from other tests' hanging servers.
    const manager = manage(
      { stuck: nodeServer(faultServer, ["hang", CLOSE_TAG]) },
      { startupTimeoutMs: 100 },
    );
    await manager.waitForStartup();
    expect(state(manager, "stuck")).toBe("starting");
    expect(hungChildren()).toHaveLength(1);
    await manager.close();
    expect(manager.status()).toMatchObject([{ name: "stuck", state: "closed", tools: [] }]);
    // Its process is gone too (not left until the connect ceiling).
    expect(hungChildren()).toEqual([]);
  });

  it("a server killed mid-call gives that call a clean error and is restarted", async () => {
    const manager = manage({ victim: fault("tools") }, { restart: { baseDelayMs: 50 } });
    await manager.waitForStartup();
    const pidRun = await runScripted(manager.tools(), [
      { content: [fauxToolCall("mcp__victim__pid", {}, "p")] },
      "ok",
    ]);
    const pid = Number(textOf(pidRun.results[0]));
    expect(pid).toBeGreaterThan(0);

    const slow = manager.tools().find((tool) => tool.name === "mcp__victim__slow")!;
    const killed = await slow.execute(
      {},
      {
        signal: new AbortController().signal,
        toolCallId: "s",
        // The first progress note says the call is running on the server: kill it now.
        onUpdate: async () => {
          process.kill(pid, "SIGKILL");
        },
      },
    );
    expect(killed).toMatchObject({ isError: true });
    expect(String((killed as { content: unknown }).content)).toMatch(
      /MCP server "victim" stopped during the call .*being restarted/,
    );

    // The server is restarting; a call now waits for it instead of failing.
    expect(state(manager, "victim")).toBe("restarting");
    const again = await runScripted(manager.tools(), [
      { content: [fauxToolCall("mcp__victim__pid", {}, "p")] },
      "ok",
    ]);
    expect(Number(textOf(again.results[0]))).not.toBe(pid);
    expect(manager.status()[0]).toMatchObject({ state: "ready", restarts: 1 });
  });

  it("a server that keeps dying is failed after the restart attempts, with the last reason", async () => {
    const marker = join(mkdtempSync(join(tmpdir(), "tern-mcp-")), "started");
    const manager = manage(
      { flaky: fault("once", { MARKER_FILE: marker }) },
      { restart: { baseDelayMs: 10, maxAttempts: 3 } },
    );
    await manager.waitForStartup();
    const [pid] = (
      await runScripted(manager.tools(), [{ content: [fauxToolCall("mcp__flaky__pid", {}, "p")] }, "ok"])
    ).results;
    process.kill(Number(textOf(pid)), "SIGKILL");
    await until(manager, () => state(manager, "flaky") === "failed");
    const status = manager.status()[0]!;
    expect(status).toMatchObject({ state: "failed", restarts: 3, tools: [] });
    expect(status.error).toContain("cannot start again");
    const run = await runScripted(manager.tools(), ["nothing to call"]);
    expect(run.answer).toBe("nothing to call");
  });

  it("a tool name clash between two servers is resolved deterministically and visibly", async () => {
    // "git.hub" and "git_hub" both sanitise to "git_hub".
    const manager = manage({ "git.hub": fault("tools"), git_hub: fault("tools") });
    await manager.waitForStartup();
    const names = manager.tools().map((tool) => tool.name);
    expect(new Set(names).size).toBe(names.length);
    const status = manager.status();
    const winner = status.find((s) => s.name === "git.hub")!.tools.find((t) => t.tool === "echo")!;
    const loser = status.find((s) => s.name === "git_hub")!.tools.find((t) => t.tool === "echo")!;
    expect(winner).toEqual({ name: "mcp__git_hub__echo", tool: "echo", readOnly: false });
    expect(loser.name).toMatch(/^mcp__git_hub__echo_[0-9a-f]{8}$/);
    expect(loser.note).toContain('taken by tool "echo" of server "git.hub"');
    const run = await runScripted(manager.tools(), [
      {
        content: [
          fauxToolCall(winner.name, { text: "a" }, "a"),
          fauxToolCall(loser.name, { text: "b" }, "b"),
        ],
      },
      "done",
    ]);
    expect(run.results.map(textOf)).toEqual(["echo: a", "echo: b"]);
  });

  it("isError results are failed results; read-only hints become the read kind", async () => {
    const manager = manage({ f: fault("tools") });
    await manager.waitForStartup();
    const tools = manager.tools();
    expect(tools.find((tool) => tool.name === "mcp__f__look")!.kind).toBe("read");
    expect(tools.find((tool) => tool.name === "mcp__f__fail")!.kind).toBe("exec");
    const run = await runScripted(tools, [{ content: [fauxToolCall("mcp__f__fail", {}, "x")] }, "done"]);
    expect(run.results[0]).toMatchObject({ isError: true });
    expect(textOf(run.results[0])).toBe("the thing is broken");

    const distrustful = manage({ f: fault("tools") }, { trustReadOnlyHints: false });
    await distrustful.waitForStartup();
    expect(distrustful.tools().find((tool) => tool.name === "mcp__f__look")!.kind).toBe("exec");
  });

  it("tools/list_changed during a call reaches the model on the next turn through prepareNextTurn", async () => {
    const manager = manage({ dyn: fault("tools") });
    const other = manage({ other: fault("tools") });
    await Promise.all([manager.waitForStartup(), other.waitForStartup()]);
    expect(manager.tools().map((tool) => tool.name)).not.toContain("mcp__dyn__secret");
    const plain: AnyAgentTool = {
      name: "plain",
      description: "Not MCP",
      parameters: {},
      execute: () => "ok",
    };
    const run = await runScripted(
      [plain, ...manager.tools(), ...other.tools()],
      [
        { content: [fauxToolCall("mcp__dyn__unlock", {}, "u")] },
        { content: [fauxToolCall("mcp__dyn__secret", {}, "s")] },
        "done",
      ],
      { prepareNextTurn: manager.prepareNextTurn },
    );
    const names = run.requests[1]!.context.tools?.map((tool) => tool.name) ?? [];
    expect(names).toContain("mcp__dyn__secret");
    // Tools that are not this manager's stay, once each.
    expect(names.filter((name) => name === "plain" || name === "mcp__other__echo")).toEqual([
      "plain",
      "mcp__other__echo",
    ]);
    expect(names.filter((name) => name === "mcp__dyn__echo")).toHaveLength(1);
    expect(textOf(run.results[1])).toBe("the secret is 42");
  });

  it("aborting a call sends MCP cancellation to the server", async () => {
    const marker = join(mkdtempSync(join(tmpdir(), "tern-mcp-")), "marker");
    const manager = manage({ c: fault("tools", { MARKER_FILE: marker }) });
    await manager.waitForStartup();
    const slow = manager.tools().find((tool) => tool.name === "mcp__c__slow")!;
    const controller = new AbortController();
    const call = slow.execute(
      {},
      {
        signal: controller.signal,
        toolCallId: "s",
        onUpdate: async () => controller.abort(),
      },
    );
    await expect(call).rejects.toThrow();
    // The server saw the cancellation: its handler's signal fired. Poll the file it writes.
    await waitForFile(marker);
    expect(readFileSync(marker, "utf8")).toBe("cancelled\n");
  });
});

const CLOSE_TAG = "close-test";

/** Processes of this test worker running the close test's hanging server. */
function hungChildren(): string[] {
  const out = spawnSync("ps", ["-o", "pid=,args=", "--ppid", String(process.pid)], {
    encoding: "utf8",
  }).stdout;
  return out
    .split("\n")
    .filter((line) => line.includes(faultServer) && line.trim().endsWith(`hang ${CLOSE_TAG}`));
}

async function waitForFile(path: string): Promise<void> {
  for (;;) {
    try {
      readFileSync(path);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}
