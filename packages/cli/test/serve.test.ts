// `tern serve` through the real `tern` bundle: @tern/sdk spawns `tern serve --stdio` and drives a
// session whose model is a scripted OpenAI-compatible server on loopback.

import { type ScriptServer, serveScript } from "@tern/ai/testing";
import { TernClient } from "@tern/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { textReply } from "./support/replies.js";
import { ensureBuilt, TERN_JS, tempDir, ternEnv } from "./support/tern.js";

let model: ScriptServer;

beforeAll(async () => {
  ensureBuilt();
  model = await serveScript();
});

afterAll(async () => {
  await model.close();
});

describe("tern serve", () => {
  it("serves JSON-RPC over stdio to @tern/sdk", async () => {
    model.push(textReply("Hello from the scripted model."));
    const home = tempDir();
    const client = new TernClient({
      command: process.execPath,
      args: [
        TERN_JS,
        "serve",
        "--stdio",
        "--base-url",
        model.providerUrl,
        "--model",
        "scripted",
        "--cwd",
        home,
      ],
      env: ternEnv({ TERN_HOME: home }),
    });
    await client.start();
    try {
      expect((await client.ping("hi")).protocolVersion).toBe(3);
      const session = await client.createSession({});
      const reply = await session.sendAndWait({ prompt: "Say hello." }, 20_000);
      expect(JSON.stringify(reply)).toContain("Hello from the scripted model.");
    } finally {
      await client.stop();
    }
  });
});
