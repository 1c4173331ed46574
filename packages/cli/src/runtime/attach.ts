// `@path` in a prompt and `--image FILE`: the files the person names, read and shaped for the
// model; `@SERVER:URI` attaches an MCP resource instead (./mcp-resource.ts). A mention that names
// no readable file or resource stays plain text (an email address, a decorator, a typo) with a
// warning; an explicit --image that cannot be used is an error.

import { homedir } from "node:os";
import path from "node:path";
import type { ImageContent, Model } from "@tern/ai";
import { type Attachment, promptWithAttachments, readAttachment } from "@tern/tools";
import { UsageError } from "../cli/errors.js";
import { type ResourceReader, readResourceBlock, resourceReference } from "./mcp-resource.js";

/** `@` at the start or after whitespace, then the path up to the next whitespace. */
const MENTION = /(?<=^|\s)@(\S+)/g;
/** Trailing punctuation that ends a sentence rather than a path ("look at @a.ts."). */
const TRAILING = /[.,;:!?)\]'"]+$/;

export interface PreparedPrompt {
  text: string;
  images: ImageContent[];
  /** The files and resources attached, as the prompt names them. */
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
  options: { cwd: string; model: Model; imageFiles?: readonly string[]; mcp?: ResourceReader | undefined },
): Promise<PreparedPrompt> {
  const attachments: Attachment[] = [];
  const resources: { shown: string; block: string }[] = [];
  const warnings: string[] = [];
  const servers = options.mcp?.status().map((server) => server.name) ?? [];
  for (const file of options.imageFiles ?? []) {
    const read = await readAttachment(resolveUserPath(options.cwd, file), file);
    if (!read.ok) throw new UsageError(`--image ${read.error}`);
    if (read.attachment.kind !== "image")
      throw new UsageError(`--image ${file} is not a PNG, JPEG, GIF or WebP image`);
    attachments.push(read.attachment);
  }
  for (const spelled of mentionsIn(prompt)) {
    const mcp = options.mcp;
    if (mcp && resourceReference(spelled, servers)) {
      const read = await readTrimmedToo(spelled, (text) => {
        const reference = resourceReference(text, servers);
        return reference && readResourceBlock(mcp, reference, text);
      });
      if (read.ok) resources.push(read);
      else warnings.push(`@${spelled} was not attached: ${read.error} (it stays in the prompt as text)`);
      continue;
    }
    const read = await readTrimmedToo(spelled, (text) =>
      readAttachment(resolveUserPath(options.cwd, text), text),
    );
    if (read.ok) attachments.push(read.attachment);
    else
      warnings.push(
        `@${spelled} was not attached: ${read.error}${serverHint(spelled, servers)} (it stays in the prompt as text)`,
      );
  }
  const built = promptWithAttachments(prompt, attachments, options.model);
  if (!built.ok) throw new UsageError(built.error);
  // Resources follow the files, in the order the prompt names them.
  const text = [built.text, ...resources.map((r) => r.block)].join("\n\n");
  const attached = [...attachments.map((a) => a.path), ...resources.map((r) => r.shown)];
  return { text, images: built.images, attached, warnings };
}

/** For `@name:thing` when MCP servers are configured: that no server has that name. */
function serverHint(spelled: string, servers: readonly string[]): string {
  const name = /^([^:/\\]+):./.exec(spelled)?.[1];
  if (name === undefined || servers.length === 0) return "";
  return `, and no MCP server is named "${name}" (configured: ${servers.join(", ")})`;
}

/**
 * Reads the mention as spelled and, when that fails, without trailing punctuation ("see @a.ts.");
 * `read` answers undefined for text that names nothing it reads.
 */
async function readTrimmedToo<R extends { ok: boolean }>(
  spelled: string,
  read: (text: string) => Promise<R> | undefined,
): Promise<R> {
  const first = (await read(spelled))!;
  const trimmed = spelled.replace(TRAILING, "");
  if (first.ok || trimmed === spelled || trimmed === "") return first;
  return (await read(trimmed)) ?? first;
}
