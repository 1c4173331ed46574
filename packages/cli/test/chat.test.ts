import { existsSync } from "node:fs";
import { join } from "node:path";
import { contentText, wireMessages } from "@tern/ai/testing";
import { beforeAll, expect } from "vitest";
import { startChat, terminalIt } from "./support/chat-terminal.js";
import { running, until } from "./support/processes.js";
import { textReply, toolReply } from "./support/replies.js";
import { scriptedModelEnv, startScriptedModel } from "./support/scripted-model.js";
import { ensureBuilt, tempDir } from "./support/tern.js";

beforeAll(ensureBuilt);

terminalIt("steers with Enter and queues a follow-up with Tab while a slow tool runs", async () => {
  const home = tempDir();
  const work = tempDir();
  const server = await startScriptedModel([
    toolReply([{ name: "bash", args: { command: "sleep 2 && echo slow-step-done" } }], {
      text: "Running the slow step.",
    }),
    textReply("Steering received: taking the short path."),
    textReply("Follow-up answered: here is the summary."),
  ]);
  const env = scriptedModelEnv(server, { TERN_HOME: home });
  const tmux = startChat(["--allow-tool", "bash(sleep:*)", "--allow-tool", "bash(echo:*)"], env, work);
  await tmux.waitFor(/tern chat · llamacpp\/test-model/);

  tmux.type("run the slow step", "Enter");
  await tmux.waitFor(/▸ bash \$ sleep 2 && echo slow-step-done/);
  tmux.type("use the short path", "Enter");
  tmux.type("then summarize", "Tab");
  const screen = await tmux.waitFor(/Follow-up answered: here is the summary\./);

  // What the person saw, in order.
  const order = [
    /› run the slow step/,
    /Running the slow step\./,
    /queued steering .*: use the short path/,
    /queued a follow-up .*: then summarize/,
    /✓ bash · exit 0 · 1 line/,
    // Steering reaches the model as one pinned interrupt message (the agent's interrupt policy).
    /↪ interrupt: \[USER INTERRUPT\] The user sent a message while you were working: use the short path/,
    /Steering received: taking the short path\./,
    /↪ follow-up: then summarize/,
    /Follow-up answered: here is the summary\./,
  ];
  let from = 0;
  for (const pattern of order) {
    const match = pattern.exec(screen.slice(from));
    expect(match, `${pattern} after offset ${from}:\n${screen}`).not.toBeNull();
    from += match!.index + match![0].length;
  }

  // What the model received: steering right after the tool result, the follow-up after the answer.
  expect(server.requests).toHaveLength(3);
  const second = wireMessages(server.requests[1]!.body);
  expect(second.at(-2)?.role).toBe("tool");
  expect(contentText(second.at(-2))).toMatch(/slow-step-done/);
  expect(second.at(-1)).toMatchObject({ role: "user" });
  expect(contentText(second.at(-1))).toMatch(/^\[USER INTERRUPT\] .*\nuse the short path\n/);
  const third = wireMessages(server.requests[2]!.body);
  expect(contentText(third.at(-2))).toBe("Steering received: taking the short path.");
  expect(contentText(third.at(-1))).toBe("then summarize");

  // Idle: Ctrl-C twice exits, and the session is saved.
  tmux.keys("C-c");
  tmux.keys("C-c");
  expect(await tmux.exitCode()).toBe(0);
  expect(tmux.capture()).toMatch(/session [0-9a-f]{8} saved · continue it with: tern chat --session/);
});

terminalIt("asks before a command (no, always), and Ctrl-C aborts a running turn", async () => {
  const home = tempDir();
  const work = tempDir();
  const server = await startScriptedModel([
    toolReply([{ name: "bash", args: { command: "git init -q one" } }]),
    toolReply([{ name: "bash", args: { command: "git init -q two" } }]),
    toolReply([{ name: "bash", args: { command: "git init -q three" } }]),
    textReply("Made two of the three repositories."),
    textReply("Checked: two repositories exist, the first was refused."),
    toolReply([{ name: "bash", args: { command: "sleep 9.713" } }]),
  ]);
  const env = scriptedModelEnv(server, { TERN_HOME: home });
  const tmux = startChat([], env, work);
  await tmux.waitFor(/tern chat · llamacpp\/test-model · session [0-9a-f]{8} · permissions ask/);

  tmux.type("make three files", "Enter");
  await tmux.waitFor(
    /\? Allow bash \$ git init -q one\? \[y\]es \/ \[n\]o \/ \[t\]ell it why not \/ \[a\]lways allow bash\(git init:\*\)/,
  );
  tmux.type("n");
  await tmux.waitFor(/\? Allow bash \$ git init -q two\?/);
  tmux.type("a");
  await tmux.waitFor(/✔ done/);
  const screen = tmux.capture();
  expect(screen).toMatch(/⊘ bash · denied: the user said no/);
  expect(screen).toMatch(/allowed from now on: bash\(git init:\*\)/);
  // The third call ran without a question: "always" added the rule (git init: a command with subcommands).
  expect(screen).not.toMatch(/Allow bash \$ git init -q three/);
  expect(existsSync(join(work, "one", ".git"))).toBe(false);
  expect(existsSync(join(work, "two", ".git"))).toBe(true);
  expect(existsSync(join(work, "three", ".git"))).toBe(true);
  const told = wireMessages(server.requests[1]!.body).at(-1);
  expect(contentText(told)).toMatch(/was denied: the user said no/);

  tmux.type("now wait a while", "Enter");
  await tmux.waitFor(/\? Allow bash \$ sleep 9\.713\?/);
  tmux.type("y");
  await until(() => running("sleep 9.713"), "the command to start");
  tmux.keys("C-c");
  await tmux.waitFor(/■ aborting the turn \(Ctrl-C again to exit\)/);
  await tmux.waitFor(/■ interrupted · /);
  expect(running("sleep 9.713")).toBe(false);

  tmux.type("/exit", "Enter");
  expect(await tmux.exitCode()).toBe(0);
});

terminalIt("/compact with nothing to compact leaves no spinner behind", async () => {
  const server = await startScriptedModel([textReply("Hello there.")]);
  const env = scriptedModelEnv(server);
  const tmux = startChat([], env, tempDir());
  await tmux.waitFor(/tern chat · llamacpp\/test-model/);
  tmux.type("hi", "Enter");
  await tmux.waitFor(/✔ done/);
  tmux.type("/compact", "Enter");
  // The line is drawn after the status is cleared, so any screen that shows it shows the end state.
  const screen = await tmux.waitFor(/⟳ nothing to compact/);
  expect(screen).not.toMatch(/compacting the context/);
  expect(tmux.visible()).not.toMatch(/compacting the context/);
  tmux.type("/exit", "Enter");
  expect(await tmux.exitCode()).toBe(0);
});
