// Tool names the model sees: `mcp__<server>__<tool>`, within the providers' limit
// (^[a-zA-Z0-9_-]{1,64}$). Sanitising is deterministic; a name too long is cut and given a short
// hash of the original, and a clash (two servers whose names sanitise alike) renames the later
// tool in sorted order, with a note saying so.

import { createHash } from "node:crypto";

export const MCP_TOOL_PREFIX = "mcp__";
export const MAX_TOOL_NAME_LENGTH = 64;
const HASH_LENGTH = 8;

export interface ToolNameRequest {
  server: string;
  tool: string;
}

export interface AssignedToolName extends ToolNameRequest {
  name: string;
  /** Why the name is not the plain `mcp__<server>__<tool>` (cut, or renamed after a clash). */
  note?: string;
}

/** Characters outside [a-zA-Z0-9_-] become "_". */
export function sanitizeNamePart(text: string): string {
  const clean = text.replace(/[^a-zA-Z0-9_-]/g, "_");
  return clean === "" ? "_" : clean;
}

/** `mcp__<server>__<tool>`, sanitised and cut to the limit (cut names end in a hash of the original). */
export function mcpToolName(server: string, tool: string): string {
  const full = `${MCP_TOOL_PREFIX}${sanitizeNamePart(server)}__${sanitizeNamePart(tool)}`;
  if (full.length <= MAX_TOOL_NAME_LENGTH) return full;
  return withHash(full, `${server}\u0000${tool}`);
}

/**
 * Names for every tool of every server, unique. Requests are sorted (server, then tool) so the
 * outcome does not depend on which server answered first.
 */
export function assignToolNames(requests: readonly ToolNameRequest[]): AssignedToolName[] {
  const sorted = [...requests].sort((a, b) => compare(a.server, b.server) || compare(a.tool, b.tool));
  const taken = new Map<string, ToolNameRequest>();
  const out: AssignedToolName[] = [];
  for (const request of sorted) {
    const plain = `${MCP_TOOL_PREFIX}${sanitizeNamePart(request.server)}__${sanitizeNamePart(request.tool)}`;
    let name = mcpToolName(request.server, request.tool);
    let note = name !== plain ? `name cut to ${MAX_TOOL_NAME_LENGTH} characters` : undefined;
    const owner = taken.get(name);
    if (owner) {
      const wanted = name;
      // The hash input differs per (server, tool), and a counter settles the (astronomically rare) rest.
      for (let attempt = 0; taken.has(name); attempt++) {
        name = withHash(wanted, `${request.server}\u0000${request.tool}\u0000${attempt}`);
      }
      note = `renamed from ${wanted}: that name is taken by tool "${owner.tool}" of server "${owner.server}"`;
    }
    taken.set(name, request);
    out.push(note ? { ...request, name, note } : { ...request, name });
  }
  return out;
}

function withHash(name: string, seed: string): string {
  const hash = createHash("sha256").update(seed).digest("hex").slice(0, HASH_LENGTH);
  return `${name.slice(0, MAX_TOOL_NAME_LENGTH - HASH_LENGTH - 1)}_${hash}`;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
