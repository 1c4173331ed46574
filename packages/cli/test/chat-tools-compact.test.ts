// `/tools` and an explicit `/compact` in `tern chat` on a real terminal (tmux): every tool listed
// with its kind (the `task` tool too), and /compact compacting below the automatic threshold.
import { beforeAll, expect } from "vitest";
import { startChat, terminalIt } from "./support/chat-terminal.js";
import { textReply } from "./support/replies.js";
import { scriptedModelEnv, startScriptedModel } from "./support/scripted-model.js";
import { ensureBuilt, tempDir } from "./support/tern.js";

beforeAll(ensureBuilt);

terminalIt("/tools lists every tool with its kind, task included", async () => {
  const server = await startScriptedModel([]);
  const tmux = startChat([], scriptedModelEnv(server), tempDir());
  await tmux.waitFor(/tern chat · llamacpp\/test-model/);
  tmux.type("/tools", "Enter");
  const screen = await tmux.waitFor(/ task +read /);
  expect(screen).toMatch(/ bash +exec /);
  expect(screen).toMatch(/ todo_write +read /);
  expect(screen).not.toMatch(/Cannot read properties/);
  tmux.type("/exit", "Enter");
  expect(await tmux.exitCode()).toBe(0);
  expect(server.requests).toHaveLength(0);
});

terminalIt("/compact asked for explicitly compacts a short conversation", async () => {
  const server = await startScriptedModel([
    textReply("One."),
    textReply("Two."),
    textReply("Three."),
    textReply("CARD: the user counted to three."),
  ]);
  const tmux = startChat([], scriptedModelEnv(server), tempDir());
  await tmux.waitFor(/tern chat · llamacpp\/test-model/);
  for (const [word, answer] of [
    ["one", /One\./],
    ["two", /Two\./],
    ["three", /Three\./],
  ] as const) {
    tmux.type(`say ${word}`, "Enter");
    await tmux.waitFor(answer);
  }
  tmux.type("/compact", "Enter");
  const screen = await tmux.waitFor(/⟳ compacted \(manual\): .* kept \d+ of 6 messages/);
  expect(screen).not.toMatch(/nothing to compact/);
  expect(server.requests).toHaveLength(4);
  tmux.type("/exit", "Enter");
  expect(await tmux.exitCode()).toBe(0);
});
