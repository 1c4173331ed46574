// `@path` and `--image` through `tern run` against a scripted OpenAI-compatible server: what the
// model receives, the warning for a missing path, and the error for a model without vision.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ScriptServer, wireMessages } from "@tern/ai/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { textReply } from "./support/replies.js";
import { startScriptedModel } from "./support/scripted-model.js";
import { ensureBuilt, runTern, tempDir, ternEnv } from "./support/tern.js";

beforeAll(ensureBuilt);

// The smallest valid PNG signature and header are enough: tern checks the bytes, not the name.
const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.alloc(24, 1),
]);

function setup(config?: unknown) {
  const home = tempDir();
  if (config) writeFileSync(join(home, "config.json"), JSON.stringify(config));
  const work = tempDir();
  writeFileSync(join(work, "notes.txt"), "the launch is on Tuesday\n");
  writeFileSync(join(work, "pic.png"), PNG);
  writeFileSync(join(work, "blob.bin"), Buffer.from([1, 0, 2, 0, 3]));
  const env = (s: ScriptServer, model = "test-model") =>
    ternEnv({
      TERN_HOME: home,
      TERN_PROVIDER: "llamacpp",
      TERN_MODEL: model,
      TERN_BASE_URL: `${s.baseUrl}/v1`,
    });
  return { work, env };
}

describe("attachments", () => {
  it("@path inlines a text file with its path; a missing or binary one stays text with a warning", async () => {
    const { work, env } = setup();
    const server = await startScriptedModel([textReply("Tuesday."), textReply("Tuesday, checked.")]);
    const result = await runTern(["run", "when is the launch? see @notes.txt, @nope.md and @blob.bin"], {
      env: env(server),
      cwd: work,
    });
    expect(result.code, result.stderr).toBe(0);
    const sent = wireMessages(server.requests[0]!.body).find((m) => m.role === "user")!;
    expect(sent.content).toBe(
      'when is the launch? see @notes.txt, @nope.md and @blob.bin\n\n<file path="notes.txt">\nthe launch is on Tuesday\n</file>',
    );
    expect(result.stderr).toContain(
      "@nope.md was not attached: nope.md: no such file (it stays in the prompt as text)",
    );
    expect(result.stderr).toContain("@blob.bin was not attached: blob.bin is a binary file");
  });

  it("piped `tern chat` lines attach @path too", async () => {
    const { work, env } = setup();
    const server = await startScriptedModel([textReply("Tuesday.")]);
    const result = await runTern(["chat"], { env: env(server), cwd: work, input: "when? @notes.txt\n" });
    expect(result.code, result.stderr).toBe(0);
    const sent = wireMessages(server.requests[0]!.body).find((m) => m.role === "user")!;
    expect(sent.content).toBe(
      'when? @notes.txt\n\n<file path="notes.txt">\nthe launch is on Tuesday\n</file>',
    );
  });

  it("--image and @image.png reach a vision model as image parts", async () => {
    const { work, env } = setup({
      models: [{ provider: "llamacpp", id: "eyes", abilities: { images: true } }],
    });
    const server = await startScriptedModel([
      textReply("A tiny picture."),
      textReply("A tiny picture, checked."),
    ]);
    const result = await runTern(["run", "--image", "pic.png", "what is in @pic.png?"], {
      env: env(server, "eyes"),
      cwd: work,
    });
    expect(result.code, result.stderr).toBe(0);
    const sent = wireMessages(server.requests[0]!.body).find((m) => m.role === "user")!;
    const parts = sent.content as { type: string; image_url?: { url: string } }[];
    expect(parts.map((p) => p.type)).toEqual(["text", "image_url", "image_url"]);
    expect(parts[1]!.image_url!.url).toBe(`data:image/png;base64,${PNG.toString("base64")}`);
  });

  it("refuses images for a model without vision, and --image of a non-image, before any call", async () => {
    const { work, env } = setup();
    const server = await startScriptedModel([]);
    const noVision = await runTern(["run", "--image", "pic.png", "describe it"], {
      env: env(server),
      cwd: work,
    });
    expect(noVision.code).toBe(2);
    expect(noVision.stderr).toMatch(
      /llamacpp\/test-model cannot read images \(.*pic\.png\); pick a model with vision/,
    );
    const notImage = await runTern(["run", "--image", "notes.txt", "describe it"], {
      env: env(server),
      cwd: work,
    });
    expect(notImage.code).toBe(2);
    expect(notImage.stderr).toMatch(/--image .*notes\.txt is not a PNG, JPEG, GIF or WebP image/);
    const missing = await runTern(["run", "--image", "gone.png", "describe it"], {
      env: env(server),
      cwd: work,
    });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--image .*gone\.png: no such file/);
    expect(server.requests).toHaveLength(0);
  });
});
