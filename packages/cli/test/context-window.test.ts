// The context-window check through the CLI (issue 29): a 3 MB prompt for a model whose window is
// 32k is refused before any request, `tern run` exits 2 naming both numbers (also as a plan), and
// `tern chat` (on a terminal) shows the error and goes on; a model with no known window is not
// checked.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { startChat, terminalIt } from "./support/chat-terminal.js";
import { textReply } from "./support/replies.js";
import { scriptedModelEnv, startScriptedModel } from "./support/scripted-model.js";
import { ensureBuilt, runTern, tempDir } from "./support/tern.js";

beforeAll(ensureBuilt);

/** About 745k tokens by the estimate (four characters a token). */
const HUGE = "word ".repeat(596_000);
const REFUSAL =
  "the prompt is too large for llamacpp/test-model: about 745000 tokens (estimated), the model's context window is 32768 tokens. Nothing was sent.";

/** A TERN_HOME whose config.json declares the scripted model with this window. */
function homeWith({ contextWindow }: { contextWindow: number }): string {
  const home = tempDir();
  writeFileSync(
    join(home, "config.json"),
    JSON.stringify({ models: [{ id: "test-model", provider: "llamacpp", contextWindow }] }),
  );
  return home;
}

describe("the context-window check", () => {
  it("tern run refuses a prompt larger than the window with exit 2, sending nothing", async () => {
    const server = await startScriptedModel([textReply("never asked")]);
    const result = await runTern(["run", "--tools", "none"], {
      env: scriptedModelEnv(server, { TERN_HOME: homeWith({ contextWindow: 32_768 }) }),
      cwd: tempDir(),
      input: HUGE,
    });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr.toLowerCase()).toContain(REFUSAL.toLowerCase());
    expect(result.stdout).toBe("");
    expect(server.requests).toHaveLength(0);
  });

  it("tern run --strategy plan refuses it before the planner is asked", async () => {
    const server = await startScriptedModel([textReply("never asked")]);
    const result = await runTern(["run", "--tools", "none", "--strategy", "plan"], {
      env: scriptedModelEnv(server, { TERN_HOME: homeWith({ contextWindow: 32_768 }) }),
      cwd: tempDir(),
      input: HUGE,
    });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr.toLowerCase()).toContain(REFUSAL.toLowerCase());
    expect(server.requests).toHaveLength(0);
  });

  terminalIt("tern chat shows the refusal and stays up for the next prompt", async () => {
    const server = await startScriptedModel([textReply("Hello back.")]);
    const env = scriptedModelEnv(server, { TERN_HOME: homeWith({ contextWindow: 100 }) });
    const tmux = startChat(["--tools", "none"], env, tempDir());
    await tmux.waitFor(/tern chat · llamacpp\/test-model/);
    tmux.type("word ".repeat(100).trim(), "Enter");
    await tmux.waitFor(
      /✗ the prompt is too large for llamacpp\/test-model: about 125 tokens \(estimated\), the model's context window is 100 tokens/i,
    );
    expect(server.requests).toHaveLength(0);
    tmux.type("hi", "Enter");
    await tmux.waitFor(/Hello back\./);
    expect(server.requests).toHaveLength(1);
  });

  it("does not check a model whose window is unknown (not catalogued, not configured)", async () => {
    const server = await startScriptedModel([textReply("Read it.")]);
    const result = await runTern(["run", "--tools", "none"], {
      env: scriptedModelEnv(server),
      cwd: tempDir(),
      input: "word ".repeat(40_000),
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe("Read it.\n");
    expect(server.requests).toHaveLength(1);
  });
});
