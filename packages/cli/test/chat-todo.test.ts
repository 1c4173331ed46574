// `tern chat` in a real terminal (tmux): the todo list is drawn as the model changes it, and a
// sub-agent shows as its task line and one summary line, not as its own tool calls.
import { beforeAll, expect } from "vitest";
import { startChat, terminalIt } from "./support/chat-terminal.js";
import { textReply, toolReply } from "./support/replies.js";
import { scriptedModelEnv, startScriptedModel } from "./support/scripted-model.js";
import { ensureBuilt, tempDir } from "./support/tern.js";

beforeAll(ensureBuilt);

terminalIt("draws the todo list live and collapses a sub-agent", async () => {
  const home = tempDir();
  const work = tempDir();
  const plan = (first: string, second: string) => [
    { id: "1", content: "Survey the code", status: first },
    { id: "2", content: "Write the summary", status: second },
  ];
  const server = await startScriptedModel([
    toolReply([{ name: "todo_write", args: { todos: plan("in_progress", "pending") } }]),
    toolReply([{ name: "task", args: { description: "Survey", prompt: "List the files." } }]),
    toolReply([{ name: "ls", args: { path: "." } }]),
    textReply("Nothing here."),
    toolReply([{ name: "todo_write", args: { todos: plan("done", "in_progress") } }]),
    textReply("Summary: an empty project."),
    textReply("Summary: an empty project."),
  ]);
  const env = scriptedModelEnv(server, { TERN_HOME: home });
  const tmux = startChat([], env, work);
  await tmux.waitFor(/tern chat · llamacpp\/test-model/);
  tmux.type("survey and summarise", "Enter");
  const screen = await tmux.waitFor(/todo 1\/2[\s\S]*Summary: an empty project\./);
  const order = [
    /todo 0\/2/,
    /▶ Survey the code/,
    /☐ Write the summary/,
    /▸ task \[general\] Survey/,
    /↳ general done · 2 turns/,
    /todo 1\/2/,
    /☑ Survey the code/,
    /▶ Write the summary/,
  ];
  let from = 0;
  for (const pattern of order) {
    const match = pattern.exec(screen.slice(from));
    expect(match, `${pattern} after offset ${from}:\n${screen}`).not.toBeNull();
    from += match!.index + match![0].length;
  }
  expect(screen).not.toMatch(/▸ ls/);
});
