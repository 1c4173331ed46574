// `tern run` on a real terminal (tmux): escape sequences in the model's answer are not passed to
// the terminal (no retitled window, no cleared screen), while a pipe gets the answer as sent.
import { afterEach, beforeAll, expect, it } from "vitest";
import { type LoopbackServer, startLoopbackServer, textReply } from "./support/openai-script.js";
import { ensureBuilt, runTern, TERN_JS, tempDir, ternEnv } from "./support/tern.js";
import { Tmux, tmuxAvailable } from "./support/tmux.js";

beforeAll(ensureBuilt);

const terminalIt = it.skipIf(!tmuxAvailable);

const ANSWER = "Before.\u001b]2;pwned\u0007\u001b[2J\u001b[HAfter the clear.\n";

let server: LoopbackServer | undefined;
let tmux: Tmux | undefined;
afterEach(async () => {
  tmux?.kill();
  tmux = undefined;
  await server?.close();
  server = undefined;
});

function localEnv(baseUrl: string) {
  return ternEnv({
    TERN_HOME: tempDir(),
    TERN_PROVIDER: "llamacpp",
    TERN_MODEL: "test-model",
    TERN_BASE_URL: `${baseUrl}/v1`,
  });
}

terminalIt("cleans the answer's escape sequences on a terminal", async () => {
  server = await startLoopbackServer([textReply(ANSWER, { chunkSize: 3 })]);
  tmux = new Tmux(tempDir());
  tmux.start([process.execPath, TERN_JS, "run", "say it"], localEnv(server.baseUrl), tempDir());
  await tmux.waitFor(/✔ done/);
  expect(await tmux.exitCode()).toBe(0);
  expect(tmux.title()).not.toBe("pwned");
  // Nothing was cleared: the header line is still on the screen, above the whole answer.
  expect(tmux.visible()).toMatch(
    /tern · llamacpp\/test-model · session [0-9a-f]{8}[^\n]*\n(?:.*\n)*Before\.After the clear\./,
  );
});

it("writes the answer as sent to a pipe, and in --json", async () => {
  server = await startLoopbackServer([textReply(ANSWER), textReply(ANSWER)]);
  const env = localEnv(server.baseUrl);
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
