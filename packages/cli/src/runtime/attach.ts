// `@path` in a prompt and `--image FILE`: the files the person names, read and shaped for the
// model. A mention that names no readable file stays plain text (an email address, a decorator,
// a typo) with a warning; an explicit --image that cannot be used is an error.

import { homedir } from "node:os";
import path from "node:path";
import type { ImageContent, Model } from "@tern/ai";
import { type Attachment, promptWithAttachments, readAttachment } from "@tern/tools";
import { UsageError } from "../cli/errors.js";

/** `@` at the start or after whitespace, then the path up to the next whitespace. */
const MENTION = /(?<=^|\s)@(\S+)/g;
/** Trailing punctuation that ends a sentence rather than a path ("look at @a.ts."). */
const TRAILING = /[.,;:!?)\]'"]+$/;

export interface PreparedPrompt {
  text: string;
  images: ImageContent[];
  /** The files attached, as the prompt names them. */
  attached: string[];
  warnings: string[];
}

/** The `@path` words of a prompt, in order, each once. */
export function mentionsIn(prompt: string): string[] {
  const found = new Set<string>();
  for (const match of prompt.matchAll(MENTION)) found.add(match[1]!);
  return [...found];
}

export function resolveUserPath(cwd: string, spelled: string): string {
  if (spelled === "~" || spelled.startsWith("~/")) return path.join(homedir(), spelled.slice(1));
  return path.resolve(cwd, spelled);
}

/** Reads the prompt's mentions and `imageFiles`; throws UsageError when the model cannot take them. */
export async function preparePrompt(
  prompt: string,
  options: { cwd: string; model: Model; imageFiles?: readonly string[] },
): Promise<PreparedPrompt> {
  const attachments: Attachment[] = [];
  const warnings: string[] = [];
  for (const file of options.imageFiles ?? []) {
    const read = await readAttachment(resolveUserPath(options.cwd, file), file);
    if (!read.ok) throw new UsageError(`--image ${read.error}`);
    if (read.attachment.kind !== "image")
      throw new UsageError(`--image ${file} is not a PNG, JPEG, GIF or WebP image`);
    attachments.push(read.attachment);
  }
  for (const spelled of mentionsIn(prompt)) {
    let read = await readAttachment(resolveUserPath(options.cwd, spelled), spelled);
    const trimmed = spelled.replace(TRAILING, "");
    if (!read.ok && trimmed !== spelled && trimmed !== "")
      read = await readAttachment(resolveUserPath(options.cwd, trimmed), trimmed);
    if (read.ok) attachments.push(read.attachment);
    else warnings.push(`@${spelled} was not attached: ${read.error} (it stays in the prompt as text)`);
  }
  const built = promptWithAttachments(prompt, attachments, options.model);
  if (!built.ok) throw new UsageError(built.error);
  return { text: built.text, images: built.images, attached: attachments.map((a) => a.path), warnings };
}
