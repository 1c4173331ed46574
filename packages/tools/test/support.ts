// Shared test helpers: temp workspaces on the real filesystem and a way to call a tool the way
// the loop does (prepareArguments, schema validation, execute).

import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { type AgentToolResult, validateArguments } from "@tern/agent";
import { afterEach } from "vitest";
import {
  type AnyBuiltinTool,
  type CreateToolsOptions,
  createTools,
  type PermissionCheck,
} from "../src/index.js";

const created: string[] = [];

afterEach(async () => {
  for (const dir of created.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** A fresh temp directory (real path), removed after the test. */
export async function tempDir(prefix = "tern-tools-"): Promise<string> {
  const dir = await realpath(await mkdtemp(path.join(tmpdir(), prefix)));
  created.push(dir);
  return dir;
}

/** Writes files (path → content) under `root`, creating directories. */
export async function files(root: string, tree: Record<string, string | Buffer>): Promise<void> {
  for (const [rel, content] of Object.entries(tree)) {
    const abs = path.join(root, rel);
    await mkdir(path.dirname(abs), { recursive: true });
    await writeFile(abs, content);
  }
}

export { symlink };

export interface Workspace {
  root: string;
  /** A sibling directory outside the root, holding secret.txt. */
  outside: string;
  tools: AnyBuiltinTool[];
  call: (
    name: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
    onUpdate?: (update: AgentToolResult) => void,
  ) => Promise<Result>;
}

export interface Result {
  text: string;
  isError: boolean;
  // biome-ignore lint/suspicious/noExplicitAny: tests read whichever details the tool returns
  details: any;
  updates: AgentToolResult[];
}

export async function workspace(
  tree: Record<string, string | Buffer> = {},
  options: Omit<CreateToolsOptions, "root"> = {},
): Promise<Workspace> {
  const base = await tempDir();
  const root = path.join(base, "root");
  const outside = path.join(base, "outside");
  await mkdir(root);
  await files(outside, { "secret.txt": "TOP SECRET\n" });
  await files(root, tree);
  const tools = createTools({ root, ...options });
  return {
    root,
    outside,
    tools,
    call: (name, args, signal, onUpdate) => callTool(tools, name, args, signal, onUpdate),
  };
}

export async function callTool(
  tools: readonly AnyBuiltinTool[],
  name: string,
  args: Record<string, unknown>,
  signal: AbortSignal = new AbortController().signal,
  /** Sees each update as it arrives (they are also returned in `updates`). */
  onUpdate?: (update: AgentToolResult) => void,
): Promise<Result> {
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  const prepared = tool.prepareArguments ? await tool.prepareArguments(structuredClone(args)) : args;
  const validation = await validateArguments(tool, prepared);
  if (!validation.ok) return { text: validation.error, isError: true, details: undefined, updates: [] };
  const updates: AgentToolResult[] = [];
  const raw = await tool.execute(validation.value, {
    signal,
    toolCallId: "test-call",
    onUpdate: async (partial) => {
      const update = typeof partial === "string" ? { content: partial } : partial;
      updates.push(update);
      onUpdate?.(update);
    },
  });
  if (raw === undefined || typeof raw === "string")
    return { text: raw ?? "", isError: false, details: undefined, updates };
  const text =
    typeof raw.content === "string"
      ? raw.content
      : raw.content.map((p) => (p.type === "text" ? p.text : "")).join("");
  return { text, isError: raw.isError === true, details: raw.details, updates };
}

/** "allow", "deny" or "ask": what a permission check decided. */
export function verdict(check: PermissionCheck): "allow" | "deny" | "ask" {
  if ("ask" in check) return "ask";
  return check.allow ? "allow" : "deny";
}
