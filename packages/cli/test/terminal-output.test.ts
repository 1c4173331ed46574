// `tern run` on a real terminal (tmux): escape sequences in the model's answer are not passed to
// the terminal (no retitled window, no cleared screen), while a pipe gets the answer as sent.
import { beforeAll, expect, it } from "vitest";
import { startTernOnTerminal, terminalIt } from "./support/chat-terminal.js";
import { textReply } from "./support/replies.js";
import { scriptedModelEnv, startScriptedModel } from "./support/scripted-model.js";
import { ensureBuilt, runTern, tempDir } from "./support/tern.js";

beforeAll(ensureBuilt);

const ANSWER = "Before.\u001b]2;pwned\u0007\u001b[2J\u001b[HAfter the clear.\n";

terminalIt("cleans the answer's escape sequences on a terminal", async () => {
  const server = await startScriptedModel([textReply(ANSWER, { chunkSize: 3 })]);
  const tmux = startTernOnTerminal(["run", "say it"], scriptedModelEnv(server), tempDir());
  await tmux.waitFor(/✔ done/);
  expect(await tmux.exitCode()).toBe(0);
  expect(tmux.title()).not.toBe("pwned");
  // Nothing was cleared: the header line is still on the screen, above the whole answer.
  expect(tmux.visible()).toMatch(
    /tern · llamacpp\/test-model · session [0-9a-f]{8}[^\n]*\n(?:.*\n)*Before\.After the clear\./,
  );
});

it("writes the answer as sent to a pipe, and in --json", async () => {
  const server = await startScriptedModel([textReply(ANSWER), textReply(ANSWER)]);
  const env = scriptedModelEnv(server);
  const piped = await runTern(["run", "say it"], { env, cwd: tempDir() });
  expect(piped.code).toBe(0);
  expect(piped.stdout).toBe(ANSWER);
  const json = await runTern(["run", "--json", "say it"], { env, cwd: tempDir() });
  const end = json.stdout
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line))
    .at(-1);
  expect(end.answer.trimEnd()).toBe(ANSWER.trimEnd());
});
