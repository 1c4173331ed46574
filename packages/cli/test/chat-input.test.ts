// The chat input on a real terminal (tmux): Alt+Enter starts a new line, `@path` attaches a file
// and Tab completes it, and an image for a model without vision is refused before any call.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { wireMessages } from "@tern/ai/testing";
import { beforeAll, expect } from "vitest";
import { startChat, terminalIt } from "./support/chat-terminal.js";
import { textReply } from "./support/replies.js";
import { scriptedModelEnv, startScriptedModel } from "./support/scripted-model.js";
import { ensureBuilt, tempDir } from "./support/tern.js";

beforeAll(ensureBuilt);

terminalIt(
  "multi-line input, @path with Tab completion, and a clear error for images without vision",
  async () => {
    const work = tempDir();
    mkdirSync(join(work, "docs"));
    writeFileSync(join(work, "docs", "release-notes.md"), "v2 ships on Friday\n");
    writeFileSync(join(work, "docs", "readme.md"), "hello\n");
    writeFileSync(
      join(work, "shot.png"),
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]),
    );
    const server = await startScriptedModel([textReply("Friday.")]);
    const env = scriptedModelEnv(server);
    const tmux = startChat([], env, work);
    await tmux.waitFor(/tern chat · llamacpp\/test-model/);

    tmux.type("first line", "M-Enter");
    tmux.type("when does it ship? see @do", "Tab");
    await tmux.waitFor(/see @docs\/\s*$/);
    tmux.type("r", "Tab");
    // Two entries start with "r": both are listed, and their common "re" is completed.
    await tmux.waitFor(/readme\.md {2}release-notes\.md[\s\S]*see @docs\/re\s*$/);
    tmux.type("l", "Tab");
    await tmux.waitFor(/see @docs\/release-notes\.md\s*$/);
    tmux.keys("Enter");
    await tmux.waitFor(/Friday\./);
    expect(tmux.capture()).toMatch(/attached docs\/release-notes\.md/);
    const user = wireMessages(server.requests[0]!.body).find((m) => m.role === "user")!;
    expect(user.content).toBe(
      'first line\nwhen does it ship? see @docs/release-notes.md\n\n<file path="docs/release-notes.md">\nv2 ships on Friday\n</file>',
    );

    tmux.type("what is in @shot.png", "Enter");
    await tmux.waitFor(/✗ llamacpp\/test-model cannot read images \(shot\.png\); pick a model with vision/);
    expect(server.requests).toHaveLength(1);

    tmux.type("/exit", "Enter");
    expect(await tmux.exitCode()).toBe(0);
  },
);
