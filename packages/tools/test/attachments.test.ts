// readAttachment and promptWithAttachments on real files: text (cut at the cap), images by their
// bytes, and a clear refusal for each bad input.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { MAX_ATTACHED_IMAGE_BYTES } from "../src/attachments.js";
import { MAX_ATTACHED_TEXT_BYTES, promptWithAttachments, readAttachment } from "../src/index.js";
import { files, tempDir } from "./support.js";

const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);
const VISION = {
  id: "v",
  provider: "p",
  abilities: { toolCall: true, jsonMode: true, reasoning: false, images: true },
};
const BLIND = { ...VISION, abilities: { ...VISION.abilities, images: false } };

describe("attachments", () => {
  it("reads text, cuts long text, and tells images by their bytes", async () => {
    const dir = await tempDir();
    await files(dir, {
      "a.md": "# hi\n",
      "long.log": "x".repeat(MAX_ATTACHED_TEXT_BYTES + 10),
      "photo.txt": JPEG,
      "big.jpg": Buffer.concat([JPEG, Buffer.alloc(MAX_ATTACHED_IMAGE_BYTES)]),
      "data.bin": Buffer.from([0, 1, 0, 2]),
      "sub/x": "",
    });
    const text = await readAttachment(path.join(dir, "a.md"), "a.md");
    expect(text).toEqual({
      ok: true,
      attachment: { kind: "text", path: "a.md", text: "# hi\n", bytes: 5, truncated: false },
    });
    const long = await readAttachment(path.join(dir, "long.log"), "long.log");
    expect(long.ok && long.attachment.kind === "text" && long.attachment.text.length).toBe(
      MAX_ATTACHED_TEXT_BYTES,
    );
    const image = await readAttachment(path.join(dir, "photo.txt"), "photo.txt");
    expect(image.ok && image.attachment.kind === "image" && image.attachment.image.mimeType).toBe(
      "image/jpeg",
    );

    const built = promptWithAttachments(
      "look",
      [long.ok ? long.attachment : never(), image.ok ? image.attachment : never()],
      VISION,
    );
    expect(built.ok).toBe(true);
    if (built.ok) {
      expect(built.text).toMatch(
        /^look\n\n<file path="long.log">\nx+\n<\/file>\n\[cut: the file has 100010 bytes; only the first 100000 are attached\]$/,
      );
      expect(built.images).toHaveLength(1);
    }
    expect(promptWithAttachments("look", [image.ok ? image.attachment : never()], BLIND)).toEqual({
      ok: false,
      error: expect.stringMatching(/^p\/v cannot read images \(photo.txt\)/),
    });

    expect(await readAttachment(path.join(dir, "big.jpg"), "big.jpg")).toEqual({
      ok: false,
      error: expect.stringMatching(/^big.jpg is \d+ bytes; images up to 5 MiB can be attached$/),
    });
    expect(await readAttachment(path.join(dir, "data.bin"), "data.bin")).toEqual({
      ok: false,
      error: "data.bin is a binary file; only text and PNG, JPEG, GIF or WebP images can be attached",
    });
    expect(await readAttachment(path.join(dir, "sub"), "sub")).toEqual({
      ok: false,
      error: "sub is a directory; attach files",
    });
    expect(await readAttachment(path.join(dir, "nope"), "nope")).toEqual({
      ok: false,
      error: "nope: no such file",
    });
  });
});

function never(): never {
  throw new Error("unreachable");
}
