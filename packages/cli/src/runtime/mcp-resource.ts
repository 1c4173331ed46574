// `@SERVER:URI` in a prompt: an MCP resource attached next to the `@path` files. Only the name of
// a configured MCP server makes a mention a resource, so `@user:pass` or `@c:notes.txt` stay what
// they were. The resource is read with `resources/read`; text contents are inlined under the same
// cap as files, binary ones described (never pasted). Every failure is a sentence naming the
// reference, for a warning: the rest of the prompt still runs.

import type { ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import { contentAsText, type McpManager } from "@tern/mcp";
import { attachedTextBlock, MAX_ATTACHED_TEXT_BYTES } from "@tern/tools";
import { errorText } from "../cli/errors.js";

/** What reading a resource needs of the MCP manager. */
export type ResourceReader = Pick<McpManager, "status" | "readResource">;

export interface ResourceReference {
  server: string;
  uri: string;
}

type ResourceContents = ReadResourceResult["contents"][number];

export type ResourceRead = { ok: true; shown: string; block: string } | { ok: false; error: string };

/**
 * The resource a mention (the text after `@`) names: a configured server's name, a colon, and a
 * URI. When server names overlap ("a" and "a:b"), the longest one that fits wins.
 */
export function resourceReference(
  spelled: string,
  servers: readonly string[],
): ResourceReference | undefined {
  let server: string | undefined;
  for (const name of servers) {
    const fits = spelled.length > name.length + 1 && spelled.startsWith(`${name}:`);
    if (fits && (server === undefined || name.length > server.length)) server = name;
  }
  return server === undefined ? undefined : { server, uri: spelled.slice(server.length + 1) };
}

/** Reads the resource and shapes it for the prompt; `shown` is how the prompt names it. */
export async function readResourceBlock(
  reader: ResourceReader,
  reference: ResourceReference,
  shown: string,
): Promise<ResourceRead> {
  let result: ReadResourceResult;
  try {
    result = await reader.readResource(reference.server, reference.uri);
  } catch (error) {
    return { ok: false, error: `${shown}: ${errorText(error)}` };
  }
  if (result.contents.length === 0) return { ok: false, error: `${shown}: the server sent no contents` };
  const blocks = result.contents.map((contents) => contentsBlock(reference.server, contents));
  return { ok: true, shown, block: blocks.join("\n\n") };
}

function contentsBlock(server: string, contents: ResourceContents): string {
  // Blobs are described as tool results describe them.
  if (!("text" in contents) || typeof contents.text !== "string")
    return contentAsText({ type: "resource", resource: contents });
  const whole = Buffer.from(contents.text);
  const cut = whole.length > MAX_ATTACHED_TEXT_BYTES;
  const text = cut ? whole.subarray(0, MAX_ATTACHED_TEXT_BYTES).toString("utf8") : contents.text;
  return attachedTextBlock(
    "resource",
    { server, uri: contents.uri },
    text,
    cut ? { what: "resource", bytes: whole.length } : undefined,
  );
}
