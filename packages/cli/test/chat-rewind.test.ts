// `/rewind` in `tern chat` on a real terminal (tmux): it lists the turns, puts the files a turn
// changed back, returns the conversation to before it and puts its prompt back in the input line.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { wireMessages } from "@tern/ai/testing";
import { beforeAll, expect } from "vitest";
import { startChat, terminalIt } from "./support/chat-terminal.js";
import { textReply, toolReply } from "./support/replies.js";
import { scriptedModelEnv, startScriptedModel } from "./support/scripted-model.js";
import { ensureBuilt, tempDir } from "./support/tern.js";

beforeAll(ensureBuilt);

terminalIt("/rewind lists turns, restores files and the conversation, and refills the prompt", async () => {
  const work = tempDir();
  writeFileSync(join(work, "a.txt"), "first\n");
  const server = await startScriptedModel([
    textReply("Hello."),
    toolReply([
      { name: "write", args: { path: "a.txt", content: "second\n" } },
      { name: "bash", args: { command: "echo made > b.txt" } },
    ]),
    textReply("Changed a.txt and made b.txt."),
    textReply("Starting over."),
  ]);
  const env = scriptedModelEnv(server);
  const tmux = startChat(["--mode", "bypass", "--sandbox", "off"], env, work);
  await tmux.waitFor(/tern chat · llamacpp\/test-model/);
  tmux.type("say hello", "Enter");
  await tmux.waitFor(/Hello\./);
  tmux.type("change the files", "Enter");
  await tmux.waitFor(/✔ done[\s\S]*✔ done/);
  expect(readFileSync(join(work, "a.txt"), "utf8")).toBe("second\n");

  tmux.type("/rewind", "Enter");
  await tmux.waitFor(/ {2}2 {2}change the files\n.*\/rewind N goes back to before turn N/);
  tmux.type("/rewind 2", "Enter");
  await tmux.waitFor(
    /code: restored 2 files to before turn 2 \("change the files"\): a\.txt, b\.txt \(deleted: it was created since\)/,
  );
  await tmux.waitFor(/conversation: back to before turn 2/);
  expect(readFileSync(join(work, "a.txt"), "utf8")).toBe("first\n");
  expect(existsSync(join(work, "b.txt"))).toBe(false);
  // The rewound prompt is back in the input line: Enter sends it again from before turn 2.
  await tmux.waitFor(/› change the files\s*$/);
  tmux.keys("Enter");
  await tmux.waitFor(/Starting over\./);
  const sent = wireMessages(server.requests.at(-1)!.body).filter((m) => m.role !== "system");
  expect(sent.map((m) => m.role)).toEqual(["user", "assistant", "user"]);

  tmux.type("/exit", "Enter");
  expect(await tmux.exitCode()).toBe(0);
});
