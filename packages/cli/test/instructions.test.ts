// Project instructions through the real CLI: `tern run` puts AGENTS.md files into the system prompt
// (user first, then root down to the cwd), names them in its header and in a `--json` line,
// --no-instructions and "instructions": false turn it off, chat's /context lists them, and
// `tern serve` loads them for its workspace.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { contentText, type ScriptServer, wireMessages } from "@tern/ai/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { startChat, terminalIt } from "./support/chat-terminal.js";
import { textReply } from "./support/replies.js";
import { scriptedModelEnv, startScriptedModel } from "./support/scripted-model.js";
import { promptNewSession, startScriptedServe } from "./support/serve.js";
import { ensureBuilt, runTern, tempDir } from "./support/tern.js";

beforeAll(ensureBuilt);

function project() {
  const home = tempDir();
  const repo = tempDir();
  mkdirSync(join(repo, ".git"));
  mkdirSync(join(repo, "pkg"));
  writeFileSync(join(home, "AGENTS.md"), "USER: answer in English.");
  writeFileSync(join(repo, "AGENTS.md"), "ROOT: use tabs.");
  writeFileSync(join(repo, "pkg", "AGENTS.md"), "PKG: use spaces here.");
  writeFileSync(join(repo, "pkg", "CLAUDE.md"), `PKG-CLAUDE: ${"x".repeat(500)}`);
  const env = (srv: ScriptServer, extra: NodeJS.ProcessEnv = {}) =>
    scriptedModelEnv(srv, {
      TERN_HOME: home,
      TERN_INSTRUCTIONS_MAX_BYTES: "100",
      ...extra,
    });
  return { home, repo, cwd: join(repo, "pkg"), env };
}

function systemText(srv: ScriptServer): string {
  return contentText(wireMessages(srv.requests[0]!.body)[0]);
}

describe("project instructions in tern run", () => {
  it("loads user, root and nearer files in order, names them in the header, caps the big one", async () => {
    const { home, repo, cwd, env } = project();
    const server = await startScriptedModel([textReply("ok")]);
    const result = await runTern(["run", "hi"], { env: env(server), cwd });
    expect(result.code).toBe(0);
    const system = systemText(server);
    const order = ["USER: answer", "ROOT: use tabs", "PKG: use spaces", "PKG-CLAUDE"].map((text) =>
      system.indexOf(text),
    );
    expect(order.every((at) => at > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(system).toContain(`<instructions path="${join(repo, "AGENTS.md")}" scope="project">`);
    expect(system).toContain("[tern: this file has 512 bytes; only the first 100 were loaded]");
    expect(result.stderr).toContain(
      `tern · instructions: ${join(home, "AGENTS.md")}, ${join(repo, "AGENTS.md")}, AGENTS.md, CLAUDE.md (capped: 512 bytes)`,
    );
    expect(result.stderr).toMatch(/warning:.*CLAUDE\.md: 512 bytes, only the first 100 loaded/);
  });

  it("--json has an instructions_loaded line after agent_start: paths, sizes, capped flags", async () => {
    const { home, cwd, env } = project();
    const server = await startScriptedModel([textReply("ok")]);
    const result = await runTern(["run", "--json", "hi"], { env: env(server), cwd });
    expect(result.code).toBe(0);
    const [start, first] = result.stdout
      .split("\n")
      .slice(0, 2)
      .map((line) => JSON.parse(line));
    expect(start).toMatchObject({ type: "agent_start" });
    expect(first).toMatchObject({ type: "instructions_loaded" });
    expect(first.files).toEqual([
      { path: join(home, "AGENTS.md"), scope: "user", bytes: 24, capped: false },
      expect.objectContaining({ scope: "project", bytes: 15, capped: false }),
      { path: join(cwd, "AGENTS.md"), scope: "project", bytes: 21, capped: false },
      { path: join(cwd, "CLAUDE.md"), scope: "project", bytes: 512, capped: true },
    ]);
  });

  it("--no-instructions and config.json's instructions: false load nothing", async () => {
    const { home, cwd, env } = project();
    const server = await startScriptedModel([textReply("ok"), textReply("ok")]);
    const off = await runTern(["run", "--no-instructions", "hi"], { env: env(server), cwd });
    expect(off.code).toBe(0);
    expect(off.stderr).not.toMatch(/instructions:/);
    writeFileSync(join(home, "config.json"), JSON.stringify({ instructions: false }));
    const byConfig = await runTern(["run", "--json", "hi"], { env: env(server), cwd });
    expect(byConfig.code).toBe(0);
    expect(byConfig.stdout).not.toMatch(/instructions_loaded/);
    for (const request of server.requests) {
      expect(contentText(wireMessages(request.body)[0])).not.toMatch(/ROOT: use tabs|<instructions/);
    }
  });

  terminalIt("chat shows them in its header and lists them with /context", async () => {
    const { repo, cwd, env } = project();
    const server = await startScriptedModel([]);
    const tmux = startChat([], env(server), cwd);
    await tmux.waitFor(/instructions: .*CLAUDE\.md \(capped: 512 bytes\)/);
    tmux.type("/context", "Enter");
    const screen = await tmux.waitFor(/CLAUDE\.md \(capped: 512 bytes\)\s+project, 512 bytes/);
    expect(screen).toContain(`from root ${repo}`);
    expect(screen).toMatch(/AGENTS\.md\s+project, 21 bytes/);
  });
});

describe("project instructions in tern serve", () => {
  it("a served session's system prompt holds the workspace's instructions", async () => {
    const model = await startScriptedModel();
    const home = tempDir();
    const work = tempDir();
    writeFileSync(join(work, "AGENTS.md"), "SERVED: run the linter first.");
    const served = await startScriptedServe(model.providerUrl, home, work);
    model.push(textReply("Hello."));
    await promptNewSession(served.base, "hi");
    const body = model.requests.at(-1)!.body as { messages: { content: string }[] };
    expect(body.messages[0]!.content).toContain(
      `<instructions path="${join(work, "AGENTS.md")}" scope="project">\nSERVED: run the linter first.`,
    );
  });
});
