// MCP servers through the real `tern` bundle: a scripted model (loopback OpenAI-compatible server)
// calls the tools of real MCP servers started by tern: the npm reference servers (memory,
// filesystem, everything over stdio and streamable HTTP) and the fault server of @tern/mcp's
// tests (exits at start, hangs at start, killed mid-call, two servers whose names clash), plus
// malformed configurations, project approvals and Ctrl-C.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { contentText, type ScriptServer, type WireMessage, wireMessages } from "@tern/ai/testing";
import { createSandbox } from "@tern/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  everythingBin,
  faultServer,
  filesystemBin,
  memoryBin,
  nodeServer,
  type RunningHttpServer,
  startEverythingHttp,
} from "../../mcp/test/support/servers.js";
import { running, until } from "./support/processes.js";
import { textReply, toolReply } from "./support/replies.js";
import { startScriptedModel } from "./support/scripted-model.js";
import { promptNewSession, startServe } from "./support/serve.js";
import { ensureBuilt, runTern, spawnTern, tempDir, ternEnv } from "./support/tern.js";

beforeAll(ensureBuilt);

/** The current test's scripted model, read by the request helpers below. */
let server: ScriptServer | undefined;

function setup(extraEnv: NodeJS.ProcessEnv = {}) {
  const home = tempDir();
  const work = tempDir();
  const env = (srv?: ScriptServer) =>
    ternEnv({
      TERN_HOME: home,
      TERN_PROVIDER: "llamacpp",
      TERN_MODEL: "test-model",
      TERN_BASE_URL: `${srv?.baseUrl ?? "http://127.0.0.1:9"}/v1`,
      ...extraEnv,
    });
  return { home, work, env };
}

function writeConfig(file: string, servers: Record<string, unknown>): string {
  writeFileSync(file, JSON.stringify({ mcpServers: servers }, null, 2));
  return file;
}

/** A fault server in `mode`, with a unique word on its command line to find its process. */
function faultWith(mode: string, tag: string) {
  return nodeServer(faultServer, [mode, tag]);
}

function toolNames(index: number): string[] {
  const body = server!.requests[index]!.body as { tools?: { function: { name: string } }[] };
  return (body.tools ?? []).map((tool) => tool.function.name);
}

/** The tool results request `index` carried back: those after the last assistant message. */
function toolResults(index: number): WireMessage[] {
  const messages = wireMessages(server!.requests[index]!.body);
  const last = messages.map((message) => message.role).lastIndexOf("assistant");
  return messages.slice(last + 1).filter((message) => message.role === "tool");
}

const selectTools = (names: string[]) => toolReply([{ name: "select_tools", args: { tools: names } }]);

describe("tern run with MCP servers", () => {
  it("calls a user server's tools; allow rules, denials and read-only hints apply", async () => {
    const { home, work, env } = setup();
    writeConfig(join(home, "mcp.json"), {
      memory: nodeServer(memoryBin, [], { MEMORY_FILE_PATH: join(work, "memory.jsonl") }),
    });
    server = await startScriptedModel([
      toolReply([
        {
          name: "mcp__memory__create_entities",
          args: { entities: [{ name: "tern", entityType: "project", observations: ["speaks MCP"] }] },
        },
        { name: "mcp__memory__delete_entities", args: { entityNames: ["tern"] } },
      ]),
      toolReply([{ name: "mcp__memory__read_graph", args: {} }]),
      textReply("Done."),
      // Three tool calls: the agent's completion checklist asks once before accepting the answer.
      textReply("tern speaks MCP."),
    ]);
    const result = await runTern(
      ["run", "--tools", "none", "--allow-tool", "mcp__memory__create_*", "remember tern"],
      { env: env(server), cwd: work },
    );
    expect(result.stderr).not.toMatch(/tern: (?!warning)/);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("tern speaks MCP.\n");
    expect(result.stderr).toMatch(/mcp memory/);
    expect(toolNames(0)).toContain("mcp__memory__read_graph");
    // With --tools none the system prompt names the servers instead of saying there are no tools.
    const system = contentText(wireMessages(server.requests[0]!.body)[0]);
    expect(system).toContain("MCP servers (memory) add tools named mcp__<server>__<tool>");
    expect(system).not.toContain("answer from the conversation alone");
    const [created, deleted] = toolResults(1);
    expect(contentText(created)).toContain('"name": "tern"');
    // No rule allows deleting and there is no terminal to ask.
    expect(contentText(deleted)).toMatch(/mcp__memory__delete_entities needs the user's permission/);
    // read_graph is marked read-only by the server: it runs without a rule.
    expect(contentText(toolResults(2)[0])).toContain("speaks MCP");
    expect(readFileSync(join(work, "memory.jsonl"), "utf8")).toContain("speaks MCP");
  });

  it("read-only mode runs the filesystem server's read-only tools and denies its writes; selection and request_tools see MCP tools", async () => {
    const { work, env } = setup();
    writeFileSync(join(work, "notes.txt"), "the notes\n");
    const config = writeConfig(join(work, "fs.json"), { fs: nodeServer(filesystemBin, [work]) });
    server = await startScriptedModel([
      // 14 filesystem tools: more than 12, so the selection call runs first and sees them.
      selectTools(["mcp__fs__read_text_file"]),
      toolReply([{ name: "mcp__fs__read_text_file", args: { path: join(work, "notes.txt") } }]),
      toolReply([{ name: "request_tools", args: { names: ["mcp__fs__write_file"] } }]),
      toolReply([{ name: "mcp__fs__write_file", args: { path: join(work, "out.txt"), content: "x" } }]),
      textReply("Read the notes; writing is not allowed."),
    ]);
    const result = await runTern(
      ["run", "--tools", "none", "--mode", "read-only", "--mcp-config", config, "read the notes"],
      { env: env(server), cwd: work },
    );
    expect(result.code).toBe(0);
    const selection = contentText(wireMessages(server.requests[0]!.body).at(-1));
    expect(selection).toContain("- mcp__fs__write_file:");
    expect(toolNames(1)).toEqual(["mcp__fs__read_text_file", "request_tools"]);
    expect(contentText(toolResults(2)[0])).toBe("the notes\n");
    expect(toolNames(3)).toEqual(["mcp__fs__read_text_file", "mcp__fs__write_file", "request_tools"]);
    expect(contentText(toolResults(4)[0])).toMatch(/read-only mode.*mcp__fs__read_text_file/);
    expect(existsSync(join(work, "out.txt"))).toBe(false);
  });

  describe("over streamable HTTP", () => {
    let everything: RunningHttpServer | undefined;
    afterAll(async () => {
      await everything?.stop();
    });

    it("calls the everything server's tools at its URL", async () => {
      const { work, env } = setup();
      everything = await startEverythingHttp("streamableHttp");
      const config = writeConfig(join(work, "remote.json"), {
        everything: { type: "http", url: everything.url },
      });
      server = await startScriptedModel([
        selectTools(["mcp__everything__echo", "mcp__everything__get-sum"]),
        toolReply([
          { name: "mcp__everything__echo", args: { message: "over http" } },
          { name: "mcp__everything__get-sum", args: { a: 2, b: 40 } },
        ]),
        textReply("done"),
      ]);
      const result = await runTern(["run", "--tools", "none", "--mcp-config", config, "echo"], {
        env: env(server),
        cwd: work,
      });
      expect(result.code).toBe(0);
      const [echo, sum] = toolResults(2);
      expect(contentText(echo)).toContain("Echo: over http");
      expect(contentText(sum)).toContain("42");
    });
  });

  it("calls the everything server over stdio", async () => {
    const { work, env } = setup();
    const config = writeConfig(join(work, "everything.json"), { everything: nodeServer(everythingBin) });
    server = await startScriptedModel([
      selectTools(["mcp__everything__echo"]),
      toolReply([{ name: "mcp__everything__echo", args: { message: "over stdio" } }]),
      textReply("done"),
    ]);
    const result = await runTern(["run", "--tools", "none", "--mcp-config", config, "echo"], {
      env: env(server),
      cwd: work,
    });
    expect(result.code).toBe(0);
    expect(contentText(toolResults(2)[0])).toContain("Echo: over stdio");
  });
});

describe("tern run --strategy plan with MCP servers", () => {
  it("gives the plan's steps the MCP tools", async () => {
    const { work, env } = setup();
    const config = writeConfig(join(work, "f.json"), { f: nodeServer(faultServer, ["tools"]) });
    server = await startScriptedModel([
      toolReply([
        { name: "make_plan", args: { steps: [{ id: "look", task: "Look around", dependencies: [] }] } },
      ]),
      toolReply([{ name: "mcp__f__look", args: {} }]),
      textReply("Looked."),
      toolReply([
        { name: "analyze_results", args: { achieved: true, confidence: 0.9, reasoning: "looked" } },
      ]),
      textReply("It looked."),
    ]);
    const result = await runTern(
      ["run", "--strategy", "plan", "--tools", "none", "--mcp-config", config, "look around"],
      { env: env(server), cwd: work },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe("It looked.\n");
    expect(toolNames(1)).toContain("mcp__f__look");
    expect(contentText(toolResults(2)[0])).toBe("looked");
  });
});

describe("tern run: sub-agents with MCP servers", () => {
  it("gives a task's sub-agent the MCP tools, guarded by the run's permission policy", async () => {
    const { work, env } = setup();
    const config = writeConfig(join(work, "f.json"), { f: nodeServer(faultServer, ["tools"]) });
    server = await startScriptedModel([
      selectTools(["task"]),
      toolReply([{ name: "task", args: { description: "Look", prompt: "Look around" } }]),
      toolReply([
        { name: "mcp__f__look", args: {}, id: "call_look" },
        { name: "mcp__f__echo", args: { text: "hi" }, id: "call_echo" },
      ]),
      textReply("Sub-agent looked."),
      textReply("It looked."),
    ]);
    const result = await runTern(["run", "--mcp-config", config, "look around"], {
      env: env(server),
      cwd: work,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe("It looked.\n");
    // Request 2 is the sub-agent's first: it is offered the server's tools.
    expect(toolNames(2)).toEqual(expect.arrayContaining(["mcp__f__look", "mcp__f__echo"]));
    // The read-only tool runs; the other is asked about, and with no terminal to ask, denied.
    const [look, echo] = toolResults(3);
    expect(contentText(look)).toBe("looked");
    expect(contentText(echo)).toMatch(/"mcp__f__echo" was denied: .* without a terminal to ask/);
    expect(contentText(toolResults(4)[0])).toBe("Sub-agent looked.");
  });
});

describe("--mcp-sandbox", () => {
  it("runs a local server under bubblewrap: it writes in the workspace and nowhere else", async () => {
    const status = await createSandbox().status();
    if (status.profile !== "sandbox" || !status.available) {
      console.warn(`skipped: the sandbox cannot run here`);
      return;
    }
    const { work, env } = setup();
    const outside = tempDir();
    // The filesystem server is told it may use the whole disk: only the sandbox stops it.
    const config = writeConfig(join(work, "fs.json"), { fs: nodeServer(filesystemBin, ["/"]) });
    const script = () => [
      selectTools(["mcp__fs__write_file"]),
      toolReply([
        { name: "mcp__fs__write_file", args: { path: join(work, "in.txt"), content: "in" } },
        { name: "mcp__fs__write_file", args: { path: join(outside, "out.txt"), content: "out" } },
      ]),
      textReply("done"),
    ];
    server = await startScriptedModel(script());
    const args = ["run", "--tools", "none", "--mode", "bypass", "--mcp-config", config, "write"];
    const confined = await runTern([...args, "--mcp-sandbox"], { env: env(server), cwd: work });
    expect(confined.code, confined.stderr).toBe(0);
    const [inside, out] = toolResults(2);
    expect(contentText(inside)).toMatch(/Successfully wrote/);
    // Outside the workspace the disk is read-only, and /tmp a private one: either way, nothing lands.
    expect(contentText(out)).toMatch(/read-only file system|EROFS|ENOENT/i);
    expect(readFileSync(join(work, "in.txt"), "utf8")).toBe("in");
    expect(existsSync(join(outside, "out.txt"))).toBe(false);

    // Without the option the same server writes wherever the user may: it is not sandboxed.
    await server.close();
    server = await startScriptedModel(script());
    const open = await runTern(args, { env: env(server), cwd: work });
    expect(open.code).toBe(0);
    expect(readFileSync(join(outside, "out.txt"), "utf8")).toBe("out");
  });
});

describe("faults", () => {
  // Whether a healthy server beats the startup ceiling is a race on a loaded machine, so no run
  // here depends on it: the ceiling is a hang ceiling where servers must come up, and a tiny one
  // where only a server that never answers is waited on (any ceiling leaves that one starting).
  // That one stuck server does not hold up the others is @tern/mcp's faults test (its ceiling is
  // an abort the test sends once the healthy server is up).
  it("a server that exits at start is reported, and the run goes on with the others' tools", async () => {
    const { work, env } = setup({ MCP_TIMEOUT: "60000" });
    const config = writeConfig(join(work, "faults.json"), {
      dead: nodeServer(faultServer, ["exit"]),
      f: nodeServer(faultServer, ["tools"]),
    });
    server = await startScriptedModel([
      toolReply([{ name: "mcp__f__echo", args: { text: "still here" } }]),
      textReply("done"),
    ]);
    const result = await runTern(
      ["run", "--tools", "none", "--allow-tool", "mcp__f__echo", "--mcp-config", config, "go"],
      { env: env(server), cwd: work },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/MCP server "dead" failed: .*no API key configured/);
    expect(
      toolNames(0)
        .filter((name) => name.startsWith("mcp__"))
        .sort(),
    ).toEqual(
      [
        "mcp__f__echo",
        "mcp__f__fail",
        "mcp__f__look",
        "mcp__f__pid",
        "mcp__f__slow",
        "mcp__f__unlock",
      ].sort(),
    );
    expect(contentText(toolResults(1)[0])).toBe("echo: still here");
  });

  it("a server that hangs is left behind the startup ceiling (MCP_TIMEOUT) and stopped at exit", async () => {
    const tag = `hang-${process.pid}-${Date.now()}`;
    const { work, env } = setup({ MCP_TIMEOUT: "1" });
    const config = writeConfig(join(work, "faults.json"), { stuck: faultWith("hang", tag) });
    server = await startScriptedModel([textReply("done")]);
    const result = await runTern(["run", "--tools", "none", "--mcp-config", config, "go"], {
      env: env(server),
      cwd: work,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/MCP server "stuck" is still starting/);
    expect(toolNames(0).filter((name) => name.startsWith("mcp__"))).toEqual([]);
    await until(() => !running(tag), "the hanging server to be stopped");
  });

  it("a server killed mid-call fails that call cleanly, and the run goes on", async () => {
    const { work, env } = setup();
    const config = writeConfig(join(work, "f.json"), { f: nodeServer(faultServer, ["tools"]) });
    server = await startScriptedModel([
      toolReply([{ name: "mcp__f__pid", args: {} }]),
      toolReply([{ name: "mcp__f__slow", args: {} }]),
      textReply("it crashed"),
    ]);
    const tern = spawnTern(
      ["run", "--json", "--tools", "none", "--mode", "bypass", "--mcp-config", config, "go"],
      {
        env: env(server),
        cwd: work,
      },
    );
    await tern.waitFor(/"type":"tool_execution_update"/, "stdout");
    const pid = Number(contentText(toolResults(1)[0]));
    expect(pid).toBeGreaterThan(0);
    process.kill(pid, "SIGKILL");
    const result = await tern.done;
    expect(result.code).toBe(0);
    expect(contentText(toolResults(2)[0])).toMatch(
      /MCP server "f" stopped during the call .*The call may or may not have taken effect/,
    );
  });

  it("Ctrl-C aborts a call in flight, exits 130 and stops the server", async () => {
    const tag = `sigint-${process.pid}-${Date.now()}`;
    const { work, env } = setup();
    const config = writeConfig(join(work, "f.json"), { f: faultWith("tools", tag) });
    server = await startScriptedModel([toolReply([{ name: "mcp__f__slow", args: {} }]), textReply("never")]);
    const tern = spawnTern(
      ["run", "--json", "--tools", "none", "--mode", "bypass", "--mcp-config", config, "go"],
      {
        env: env(server),
        cwd: work,
      },
    );
    await tern.waitFor(/"type":"tool_execution_update"/, "stdout");
    expect(running(tag)).toBe(true);
    tern.child.kill("SIGINT");
    const result = await tern.done;
    expect(result.code).toBe(130);
    await until(() => !running(tag), "the MCP server to be stopped");
  });

  it("a malformed configuration is a usage error naming the file (exit 2), and no session is left", async () => {
    const { home, work, env } = setup();
    const bad = join(work, "bad.json");
    writeFileSync(bad, "{ not json");
    let result = await runTern(["run", "--mcp-config", bad, "go"], { env: env(), cwd: work });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(bad);
    expect(result.stderr).toMatch(/--no-mcp/);

    writeConfig(join(work, ".mcp.json"), { broken: { command: 5 } });
    result = await runTern(["run", "go"], { env: env(), cwd: work });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/\.mcp\.json \(server "broken"\)/);
    expect(existsSync(join(home, "sessions"))).toBe(false);

    result = await runTern(["run", "--mcp-config", join(work, "missing.json"), "go"], {
      env: env(),
      cwd: work,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--mcp-config .*missing\.json: no such file/);

    // --no-mcp reads no MCP configuration at all.
    server = await startScriptedModel([textReply("fine")]);
    result = await runTern(["run", "--no-mcp", "go"], { env: env(server), cwd: work });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("fine\n");
  });

  it("two servers whose names clash both keep their tools, one renamed and saying so", async () => {
    const { work, env } = setup();
    const config = writeConfig(join(work, "clash.json"), {
      "git.hub": nodeServer(faultServer, ["tools"]),
      git_hub: nodeServer(faultServer, ["tools"]),
    });
    const result = await runTern(["mcp", "ls", "--json", "--mcp-config", config], { env: env(), cwd: work });
    expect(result.code).toBe(0);
    const listed = JSON.parse(result.stdout) as {
      servers: { name: string; state: string; tools: { name: string; tool: string; note?: string }[] }[];
    };
    const echoes = listed.servers.flatMap((s) =>
      s.tools.filter((t) => t.tool === "echo").map((t) => ({ ...t, server: s.name })),
    );
    expect(echoes).toHaveLength(2);
    expect(new Set(echoes.map((t) => t.name)).size).toBe(2);
    expect(echoes.find((t) => t.name === "mcp__git_hub__echo")).toBeDefined();
    expect(echoes.find((t) => t.name !== "mcp__git_hub__echo")!.note).toMatch(
      /renamed from .*that name is taken/,
    );
  });
});

describe("project servers need approval", () => {
  it("are skipped without a terminal, naming tern mcp approve; start once approved", async () => {
    const { work, env } = setup();
    writeConfig(join(work, ".mcp.json"), {
      memory: nodeServer(memoryBin, [], { MEMORY_FILE_PATH: join(work, "m.jsonl") }),
    });
    server = await startScriptedModel([textReply("no tools"), textReply("tools")]);
    let result = await runTern(["run", "--tools", "none", "go"], { env: env(server), cwd: work });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(
      /MCP server "memory" from .*\.mcp\.json was not started: .*tern mcp approve memory/,
    );
    expect(toolNames(0)).toEqual([]);

    let listed = await runTern(["mcp", "ls"], { env: env(), cwd: work });
    expect(listed.stdout).toMatch(/memory {2}not approved {2}project/);

    const approved = await runTern(["mcp", "approve", "memory"], { env: env(), cwd: work });
    expect(approved.code).toBe(0);
    expect(approved.stdout).toMatch(/^approved: memory: /);

    result = await runTern(["run", "--tools", "none", "go"], { env: env(server), cwd: work });
    expect(result.code).toBe(0);
    expect(toolNames(1)).toContain("mcp__memory__read_graph");

    listed = await runTern(["mcp", "ls"], { env: env(), cwd: work });
    expect(listed.stdout).toMatch(/memory {2}ready {2}project/);
    expect(listed.stdout).toMatch(/mcp__memory__read_graph {2}\(read-only\)/);

    const unknown = await runTern(["mcp", "approve", "nope"], { env: env(), cwd: work });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no project MCP server "nope".*project servers: memory/);
  });
});

describe("a corrupt approvals file", () => {
  it("approves nothing and is never overwritten: approve fails naming it", async () => {
    const { home, work, env } = setup();
    writeConfig(join(work, ".mcp.json"), { f: nodeServer(faultServer, ["tools"]) });
    writeFileSync(join(home, "mcp-approvals.json"), "{ broken");
    const approve = await runTern(["mcp", "approve", "--all"], { env: env(), cwd: work });
    expect(approve.code).toBe(1);
    expect(approve.stderr).toMatch(/MCP approvals .*mcp-approvals\.json are corrupt; fix or delete the file/);
    expect(readFileSync(join(home, "mcp-approvals.json"), "utf8")).toBe("{ broken");
    const listed = await runTern(["mcp", "ls"], { env: env(), cwd: work });
    expect(listed.stdout).toMatch(/^f {2}not approved/m);
  });
});

describe("tern mcp ls", () => {
  it("shows each server's state, error and tools, as text and as JSON", async () => {
    const { work, env } = setup();
    mkdirSync(join(work, "cfg"));
    const config = writeConfig(join(work, "cfg", "mcp.json"), {
      dead: nodeServer(faultServer, ["exit"]),
      f: nodeServer(faultServer, ["tools"]),
    });
    const text = await runTern(["mcp", "ls", "--mcp-config", config], { env: env(), cwd: work });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^dead {2}failed {2}extra/m);
    expect(text.stdout).toMatch(/error: .*no API key configured/);
    expect(text.stdout).toMatch(/^ {2}mcp__f__look {2}\(read-only\)$/m);
    expect(text.stdout).toMatch(/^f {2}ready {2}extra .* {2}MCP 2025-11-25$/m);
    const json = await runTern(["mcp", "ls", "--json", "--mcp-config", config], { env: env(), cwd: work });
    const listed = JSON.parse(json.stdout) as {
      servers: { name: string; state: string; transport?: string; protocolVersion?: string }[];
    };
    expect(listed.servers.map((s) => [s.name, s.state, s.protocolVersion])).toEqual([
      ["dead", "failed", undefined],
      ["f", "ready", "2025-11-25"],
    ]);
  });
});

describe("tern mcp ls waits for startup", () => {
  /** A stdio MCP server that answers nothing (not even initialize) for its first 2 s. */
  function slowServer(dir: string): string {
    const sdk = (path: string) => JSON.stringify(import.meta.resolve(`@modelcontextprotocol/sdk/${path}`));
    const script = join(dir, "slow-start.mjs");
    writeFileSync(
      script,
      [
        `import { McpServer } from ${sdk("server/mcp.js")};`,
        `import { StdioServerTransport } from ${sdk("server/stdio.js")};`,
        `const server = new McpServer({ name: "slow-start", version: "1.0.0" });`,
        `server.registerTool("pid", { description: "pid" }, () => ({ content: [{ type: "text", text: String(process.pid) }] }));`,
        "setTimeout(() => void server.connect(new StdioServerTransport()), 2000);",
      ].join("\n"),
    );
    return script;
  }

  it("reports a slow server's final state, and only one still down at the ceiling as starting", async () => {
    // A hang ceiling (the connect ceiling's 60 s): the wait ends when the server is up, however
    // long a loaded machine takes to start it.
    const { work, env } = setup({ MCP_TIMEOUT: "60000" });
    const config = writeConfig(join(work, "mcp.json"), { slow: nodeServer(slowServer(work)) });
    const listed = await runTern(["mcp", "ls", "--mcp-config", config], { env: env(), cwd: work });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^slow {2}ready {2}extra /m);
    expect(listed.stdout).toMatch(/^ {2}mcp__slow__pid$/m);

    // A server that never answers: the ceiling is what ends the wait (a small one, injected).
    const hung = setup({ MCP_TIMEOUT: "300" });
    const hangs = writeConfig(join(hung.work, "mcp.json"), { stuck: faultWith("hang", "ls-ceiling") });
    const stuck = await runTern(["mcp", "ls", "--mcp-config", hangs], { env: hung.env(), cwd: hung.work });
    expect(stuck.code, stuck.stderr).toBe(0);
    expect(stuck.stdout).toMatch(/^stuck {2}still starting \(did not answer within 300 ms\) {2}extra /m);
  });
});

describe("tern serve", () => {
  it("gives served sessions the workspace's MCP tools, guarded by the permission policy; unapproved project servers are skipped", async () => {
    const home = tempDir();
    const work = tempDir();
    writeConfig(join(work, ".mcp.json"), { memory: nodeServer(memoryBin) });
    const config = writeConfig(join(work, "f.json"), { f: nodeServer(faultServer, ["tools"]) });
    server = await startScriptedModel([
      toolReply([
        { name: "mcp__f__look", args: {} },
        { name: "mcp__f__echo", args: { text: "x" } },
      ]),
      textReply("Looked."),
    ]);
    const { base, proc } = await startServe([
      "--port",
      "0",
      "--base-url",
      `${server.baseUrl}/v1`,
      "--model",
      "test-model",
      "--home",
      home,
      "--cwd",
      work,
      "--mcp-config",
      config,
      "--permission-timeout",
      "1",
      // No built-in tools: the MCP tools are still guarded.
      "--tools",
      "none",
    ]);
    expect(proc.stderr).toMatch(/MCP server "memory" from .*was not started: .*tern mcp approve memory/);
    const frames = await promptNewSession(base, "look");
    expect(frames.at(-1)).toMatchObject({ event: "done", data: { answer: "Looked." } });
    expect(toolNames(0)).toContain("mcp__f__look");
    expect(toolNames(0)).not.toContain("mcp__memory__read_graph");
    const [look, echo] = toolResults(1);
    // Read-only by the server's hint: runs in ask mode; echo needs a yes nobody gave.
    expect(contentText(look)).toBe("looked");
    console.log("ECHO", contentText(echo));
    expect(contentText(echo)).toMatch(/nobody answered/);
  });
});
