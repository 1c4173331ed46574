import { bashTool } from "./tools/bash.js";
import { editTool } from "./tools/edit.js";
import { globTool } from "./tools/glob.js";
import { grepTool } from "./tools/grep.js";
import { lsTool } from "./tools/ls.js";
import { readTool } from "./tools/read.js";
import { writeTool } from "./tools/write.js";
import type { AnyBuiltinTool, BuiltinToolName, CreateToolsOptions } from "./types.js";
import { Workspace } from "./workspace.js";

export const BUILTIN_TOOL_NAMES: readonly BuiltinToolName[] = [
  "read",
  "write",
  "edit",
  "ls",
  "glob",
  "grep",
  "bash",
];

/**
 * The built-in tools, all confined to `root`. The root's real path is resolved once, here; this
 * throws when the root does not exist (a setup error, not something for the model).
 */
export function createTools(options: CreateToolsOptions): AnyBuiltinTool[] {
  const ws = Workspace.open(
    options.root,
    options.allowHardLinks !== undefined ? { allowHardLinks: options.allowHardLinks } : {},
  );
  const make: Record<BuiltinToolName, () => AnyBuiltinTool> = {
    read: () => readTool(ws, options.read),
    write: () => writeTool(ws),
    edit: () => editTool(ws),
    ls: () => lsTool(ws, options.maxListEntries),
    glob: () => globTool(ws, options.search?.maxGlobResults),
    grep: () => grepTool(ws, options.search),
    bash: () => bashTool(ws, options.bash, options.sandbox),
  };
  const names = options.only ?? BUILTIN_TOOL_NAMES;
  for (const name of names) {
    if (!(name in make))
      throw new Error(`unknown built-in tool "${name}"; known: ${BUILTIN_TOOL_NAMES.join(", ")}`);
  }
  // The workspace rides along so a permission policy given these tools can hide files from them.
  // Not enumerable: tools are copied and serialized in places that must not carry it.
  return names.map((name) =>
    Object.defineProperty(make[name](), "workspace", { value: ws, enumerable: false }),
  );
}

/** Shorthand: every built-in tool for a workspace root. */
export function codingTools(root: string): AnyBuiltinTool[] {
  return createTools({ root });
}
