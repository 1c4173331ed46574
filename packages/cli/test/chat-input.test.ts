// The chat input on a real terminal (tmux): Alt+Enter starts a new line, `@path` attaches a file
// and Tab completes it, and an image for a model without vision is refused before any call.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, expect, it } from "vitest";
import {
  type LoopbackServer,
  startLoopbackServer,
  textReply,
  wireMessages,
} from "./support/openai-script.js";
import { ensureBuilt, TERN_JS, tempDir, ternEnv } from "./support/tern.js";
import { Tmux, tmuxAvailable } from "./support/tmux.js";

beforeAll(ensureBuilt);

const terminalIt = it.skipIf(!tmuxAvailable);

let server: LoopbackServer | undefined;
let tmux: Tmux | undefined;
afterEach(async () => {
  tmux?.kill();
  await server?.close();
  server = undefined;
});

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
    server = await startLoopbackServer([textReply("Friday.")]);
    const env = ternEnv({
      TERN_HOME: tempDir(),
      TERN_PROVIDER: "llamacpp",
      TERN_MODEL: "test-model",
      TERN_BASE_URL: `${server.baseUrl}/v1`,
    });
    tmux = new Tmux(tempDir());
    tmux.start([process.execPath, TERN_JS, "chat"], env, work);
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
