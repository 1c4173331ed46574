// Chat commands on a real terminal (tmux): /clear empties the conversation (same session, a new
// branch), /new starts another session, and a "no" can carry a reason the model reads.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { contentText, wireMessages } from "@tern/ai/testing";
import { beforeAll, expect } from "vitest";
import { startChat, terminalIt } from "./support/chat-terminal.js";
import { textReply, toolReply } from "./support/replies.js";
import { scriptedModelEnv, startScriptedModel } from "./support/scripted-model.js";
import { ensureBuilt, runTern, tempDir } from "./support/tern.js";

beforeAll(ensureBuilt);

terminalIt("/clear forgets the conversation in the same session; /new opens a new session", async () => {
  const work = tempDir();
  const server = await startScriptedModel([textReply("One."), textReply("Two."), textReply("Three.")]);
  const env = scriptedModelEnv(server);
  const tmux = startChat([], env, work);
  const header = await tmux.waitFor(/tern chat · llamacpp\/test-model · session ([0-9a-f]{8})/);
  const first = /session ([0-9a-f]{8})/.exec(header)![1]!;
  tmux.type("say one", "Enter");
  await tmux.waitFor(/One\./);
  tmux.type("/clear", "Enter");
  await tmux.waitFor(/conversation cleared/);
  // The screen was wiped: the earlier answer is gone from the visible screen.
  expect(tmux.visible()).not.toMatch(/One\./);
  tmux.type("say two", "Enter");
  await tmux.waitFor(/Two\./);
  const second = wireMessages(server.requests[1]!.body).filter((m) => m.role !== "system");
  expect(second.map((m) => m.role)).toEqual(["user"]);

  tmux.type("/new", "Enter");
  const screen = await tmux.waitFor(/new session ([0-9a-f]{8})/);
  const next = /new session ([0-9a-f]{8})/.exec(screen)![1]!;
  expect(next).not.toBe(first);
  tmux.type("say three", "Enter");
  await tmux.waitFor(/Three\./);
  tmux.type("/exit", "Enter");
  expect(await tmux.exitCode()).toBe(0);

  const listed = JSON.parse((await runTern(["sessions", "ls", "--json"], { env, cwd: work })).stdout) as {
    id: string;
  }[];
  expect(listed.map((s) => s.id.slice(0, 8)).sort()).toEqual([first, next].sort());
});

terminalIt("denies a call with a reason the model reads as the tool result", async () => {
  const server = await startScriptedModel([
    toolReply([{ name: "bash", args: { command: "touch made.txt" } }]),
    textReply("Understood, I will use the write tool."),
  ]);
  const env = scriptedModelEnv(server);
  const tmux = startChat([], env, tempDir());
  await tmux.waitFor(/tern chat · llamacpp\/test-model/);
  tmux.type("make a file", "Enter");
  await tmux.waitFor(/\? Allow bash \$ touch made\.txt\? .*\[t\]ell it why not/);
  tmux.type("t");
  await tmux.waitFor(/✎ Why not\?/);
  tmux.type("use the write tool instead", "Enter");
  await tmux.waitFor(/Understood, I will use the write tool\./);
  expect(tmux.capture()).toMatch(/⊘ bash \$ touch made\.txt: no, use the write tool instead/);
  const told = wireMessages(server.requests[1]!.body).at(-1);
  expect(told?.role).toBe("tool");
  expect(contentText(told)).toMatch(/was denied: the user said no: use the write tool instead\./);
  tmux.type("/exit", "Enter");
  expect(await tmux.exitCode()).toBe(0);
});

terminalIt(
  "custom commands from .tern/commands and $TERN_HOME/commands, with arguments, listed in /help",
  async () => {
    const home = tempDir();
    const work = tempDir();
    mkdirSync(join(work, ".tern", "commands"), { recursive: true });
    mkdirSync(join(home, "commands"));
    writeFileSync(
      join(work, ".tern", "commands", "review.md"),
      "# Review one file\nReview $1 and look for: $ARGUMENTS\n",
    );
    writeFileSync(join(home, "commands", "greet.md"), "Say hello to $1.\n");
    writeFileSync(join(home, "commands", "help.md"), "shadowing a built-in\n");
    const server = await startScriptedModel([textReply("Reviewed."), textReply("Hello, Ada.")]);
    const env = scriptedModelEnv(server, { TERN_HOME: home });
    const tmux = startChat([], env, work);
    await tmux.waitFor(/tern chat · llamacpp\/test-model/);
    tmux.type("/help", "Enter");
    await tmux.waitFor(/\/greet +Say hello to \$1\.\n\/review +Review one file/);
    expect(tmux.capture()).toMatch(/warning: .*help\.md: \/help is a built-in command; skipped/);
    tmux.type("/review src/a.ts races", "Enter");
    await tmux.waitFor(/Reviewed\./);
    const first = wireMessages(server.requests[0]!.body).find((m) => m.role === "user");
    expect(contentText(first)).toBe("# Review one file\nReview src/a.ts and look for: src/a.ts races");
    tmux.type("/greet Ada", "Enter");
    await tmux.waitFor(/Hello, Ada\./);
    expect(contentText(wireMessages(server.requests[1]!.body).at(-1))).toBe("Say hello to Ada.");
    tmux.type("/exit", "Enter");
    expect(await tmux.exitCode()).toBe(0);
  },
);

terminalIt("draws Markdown answers on the terminal; a pipe gets the text as written", async () => {
  const answer = "# Plan\n\nDo **this** first, then `that`.\n\n- one\n- two\n\n```\nkeep *this* as is\n```\n";
  const server = await startScriptedModel([textReply(answer), textReply(answer), textReply(answer)]);
  const env = scriptedModelEnv(server);
  const tmux = startChat([], env, tempDir());
  await tmux.waitFor(/tern chat · llamacpp\/test-model/);
  tmux.type("plan it", "Enter");
  const screen = await tmux.waitFor(/✔ done/);
  expect(screen).toMatch(/Do this first, then that\./);
  expect(screen).toMatch(/ {2}\* one\n {2}\* two/);
  expect(screen).toMatch(/keep \*this\* as is/);
  expect(screen).not.toMatch(/\*\*this\*\*/);
  tmux.type("/exit", "Enter");
  expect(await tmux.exitCode()).toBe(0);

  const piped = await runTern(["run", "plan it"], { env, cwd: tempDir() });
  expect(piped.code, piped.stderr).toBe(0);
  expect(piped.stdout).toContain("Do **this** first, then `that`.");
});

terminalIt(
  "[s]ave keeps an always-allow rule in the project's .tern/config.json, which later runs use and name",
  async () => {
    const work = tempDir();
    mkdirSync(join(work, ".tern"));
    writeFileSync(join(work, ".tern", "config.json"), `${JSON.stringify({ note: "kept" })}\n`);
    const server = await startScriptedModel([
      toolReply([{ name: "bash", args: { command: "git init -q one" } }]),
      textReply("Made one."),
      toolReply([{ name: "bash", args: { command: "git init -q two" } }]),
      textReply("Made two."),
      textReply("Made two, checked."),
    ]);
    const env = scriptedModelEnv(server);
    const tmux = startChat(["--sandbox", "off"], env, work);
    await tmux.waitFor(/tern chat · llamacpp\/test-model/);
    tmux.type("make one", "Enter");
    await tmux.waitFor(/\[a\]lways allow bash\(git init:\*\) \/ \[s\]ave that for the project/);
    tmux.type("s");
    await tmux.waitFor(/Made one\./);
    expect(tmux.capture()).toMatch(
      /allowed from now on, saved in .*\.tern\/config\.json: bash\(git init:\*\)/,
    );
    expect(JSON.parse(readFileSync(join(work, ".tern", "config.json"), "utf8"))).toEqual({
      note: "kept",
      allow: ["bash(git init:*)"],
    });
    tmux.type("/exit", "Enter");
    expect(await tmux.exitCode()).toBe(0);

    // A later run without a terminal to ask: the project's rule lets the command run, and is named.
    const run = await runTern(["run", "--sandbox", "off", "make two"], { env, cwd: work });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/permission rules from .*\.tern\/config\.json: allow bash\(git init:\*\)/);
    expect(existsSync(join(work, "two", ".git"))).toBe(true);
  },
);
