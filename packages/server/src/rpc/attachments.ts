// The attachments of `session.send` (the Copilot SDK's `{ type: "file", path, displayName? }`):
// each file must lie inside the session's workspace (after symlinks: a client cannot read the
// server's other files through it); text is inlined, images become image parts for models that
// can see. Every problem is an "Invalid params" error naming the attachment; nothing is sent then.

import type { ImageContent, Model } from "@tern/ai";
import { type Attachment, promptWithAttachments, readAttachment, type Workspace } from "@tern/tools";
import { type Params, record } from "./params.js";
import { INVALID_PARAMS, RpcError } from "./peer.js";

/** More attachments than this in one message is refused (each may be an image of megabytes). */
export const MAX_ATTACHMENTS = 20;

export async function promptWithClientAttachments(
  p: Params,
  prompt: string,
  where: { workspace: Workspace; model: Model },
): Promise<{ text: string; images: ImageContent[] }> {
  const raw = p.attachments;
  if (raw === undefined || raw === null) return { text: prompt, images: [] };
  if (!Array.isArray(raw)) throw invalid('"attachments" must be an array');
  if (raw.length > MAX_ATTACHMENTS) throw invalid(`at most ${MAX_ATTACHMENTS} attachments per message`);
  const ws = where.workspace;
  const read: Attachment[] = [];
  for (const [index, item] of raw.entries()) {
    const entry = record(item);
    const at = `attachments[${index}]`;
    if (!entry || typeof entry.path !== "string" || entry.path === "")
      throw invalid(`${at} must be an object with a "path" string`);
    if (entry.type !== "file")
      throw invalid(`${at}: only "file" attachments are supported (got ${JSON.stringify(entry.type)})`);
    const resolved = await ws.resolve(entry.path);
    if (!resolved.ok) throw invalid(`${at}: ${resolved.error}`);
    if (ws.hidden(resolved.abs))
      throw invalid(`${at}: a permission rule keeps ${resolved.rel} from the model`);
    const shown =
      typeof entry.displayName === "string" && entry.displayName !== "" ? entry.displayName : resolved.rel;
    const result = await readAttachment(resolved.abs, shown);
    if (!result.ok) throw invalid(`${at}: ${result.error}`);
    read.push(result.attachment);
  }
  const built = promptWithAttachments(prompt, read, where.model);
  if (!built.ok) throw invalid(built.error);
  return { text: built.text, images: built.images };
}

function invalid(message: string): RpcError {
  return new RpcError(INVALID_PARAMS, `Invalid params: ${message}`);
}
