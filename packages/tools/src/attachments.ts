// Files a person attaches to a prompt (`@path` in the CLI, `--image`, an SDK client's
// attachments): text files are inlined with their path (cut at a named size), PNG, JPEG, GIF and
// WebP images become image parts for models that can see. What a file is comes from its bytes, not
// its name. Every refusal is a sentence naming the file; nothing here throws for bad input.

import { open, stat } from "node:fs/promises";
import type { ImageContent, Model } from "@tern/ai";
import { looksBinary, SNIFF_BYTES } from "./text.js";

/** Text beyond this is cut (with a note in the prompt): a prompt is not the place for a whole log. */
export const MAX_ATTACHED_TEXT_BYTES = 100_000;
/** The largest image providers accept in one part (Anthropic's limit; OpenAI's is higher). */
export const MAX_ATTACHED_IMAGE_BYTES = 5 * 1024 * 1024;

export type Attachment =
  | { kind: "text"; path: string; text: string; bytes: number; truncated: boolean }
  | { kind: "image"; path: string; image: ImageContent; bytes: number };

export type AttachmentResult = { ok: true; attachment: Attachment } | { ok: false; error: string };

/** Reads the file at `abs`; `shown` is how the prompt names it (the path the person typed). */
export async function readAttachment(abs: string, shown: string): Promise<AttachmentResult> {
  let size: number;
  try {
    const info = await stat(abs);
    if (info.isDirectory()) return { ok: false, error: `${shown} is a directory; attach files` };
    if (!info.isFile()) return { ok: false, error: `${shown} is not a regular file` };
    size = info.size;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return {
      ok: false,
      error: code === "ENOENT" ? `${shown}: no such file` : `${shown}: cannot read it (${code})`,
    };
  }
  let bytes: Buffer;
  try {
    // Images are read whole (up to their cap, checked below); text only up to its cap.
    bytes = await readHead(abs, Math.min(size, MAX_ATTACHED_IMAGE_BYTES + 1));
  } catch (error) {
    return { ok: false, error: `${shown}: cannot read it (${(error as NodeJS.ErrnoException).code})` };
  }
  const mimeType = imageType(bytes);
  if (mimeType) {
    if (size > MAX_ATTACHED_IMAGE_BYTES)
      return {
        ok: false,
        error: `${shown} is ${size} bytes; images up to ${MAX_ATTACHED_IMAGE_BYTES / 1024 / 1024} MiB can be attached`,
      };
    return {
      ok: true,
      attachment: {
        kind: "image",
        path: shown,
        bytes: size,
        image: { type: "image", mimeType, data: bytes.toString("base64") },
      },
    };
  }
  if (looksBinary(bytes.subarray(0, SNIFF_BYTES)))
    return {
      ok: false,
      error: `${shown} is a binary file; only text and PNG, JPEG, GIF or WebP images can be attached`,
    };
  const truncated = size > MAX_ATTACHED_TEXT_BYTES;
  const text = bytes.subarray(0, MAX_ATTACHED_TEXT_BYTES).toString("utf8");
  return { ok: true, attachment: { kind: "text", path: shown, text, bytes: size, truncated } };
}

/** How a text attachment appears in the prompt. */
export function attachmentBlock(attachment: Extract<Attachment, { kind: "text" }>): string {
  const cut = attachment.truncated ? { what: "file", bytes: attachment.bytes } : undefined;
  return attachedTextBlock("file", { path: attachment.path }, attachment.text, cut);
}

/**
 * An attached text as the prompt shows it: `<tag name="value">`, the text, the closing tag, and,
 * when only the first MAX_ATTACHED_TEXT_BYTES were kept, a note saying how much there was.
 */
export function attachedTextBlock(
  tag: string,
  attributes: Record<string, string>,
  text: string,
  cut?: { what: string; bytes: number },
): string {
  const named = Object.entries(attributes)
    .map(([name, value]) => ` ${name}=${JSON.stringify(value)}`)
    .join("");
  const note = cut
    ? `\n[cut: the ${cut.what} has ${cut.bytes} bytes; only the first ${MAX_ATTACHED_TEXT_BYTES} are attached]`
    : "";
  return `<${tag}${named}>\n${text}${text.endsWith("\n") ? "" : "\n"}</${tag}>${note}`;
}

/** The prompt text with text attachments appended, and the image parts; or why the model cannot take them. */
export function promptWithAttachments(
  text: string,
  attachments: readonly Attachment[],
  model: Pick<Model, "id" | "provider" | "abilities">,
): { ok: true; text: string; images: ImageContent[] } | { ok: false; error: string } {
  const images = attachments.filter((a) => a.kind === "image");
  if (images.length > 0 && !model.abilities.images)
    return {
      ok: false,
      error: `${model.provider}/${model.id} cannot read images (${images.map((a) => a.path).join(", ")}); pick a model with vision (tern models lists "images" for them)`,
    };
  const blocks = attachments.flatMap((a) => (a.kind === "text" ? [attachmentBlock(a)] : []));
  return {
    ok: true,
    text: blocks.length > 0 ? `${text}\n\n${blocks.join("\n\n")}` : text,
    images: images.map((a) => a.image),
  };
}

function imageType(bytes: Buffer): string | undefined {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return "image/png";
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "image/jpeg";
  const head = bytes.subarray(0, 12).toString("latin1");
  if (head.startsWith("GIF87a") || head.startsWith("GIF89a")) return "image/gif";
  if (head.startsWith("RIFF") && head.slice(8, 12) === "WEBP") return "image/webp";
  return undefined;
}

/** At most `max` bytes from the start of the file (a huge log is not read whole). */
async function readHead(abs: string, max: number): Promise<Buffer> {
  const handle = await open(abs, "r");
  try {
    const buffer = Buffer.alloc(max);
    const { bytesRead } = await handle.read(buffer, 0, max, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}
