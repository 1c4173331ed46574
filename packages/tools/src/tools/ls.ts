import type { Dirent } from "node:fs";
import { lstat, readdir, readlink } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import type { BuiltinTool, ListEntry, LsDetails } from "../types.js";
import type { Workspace } from "../workspace.js";
import { fsErrorText, toolError, toolText } from "./result.js";

const parameters = z.object({
  path: z.string().optional().describe('Directory to list, relative to the workspace root. Default ".".'),
});

export function lsTool(ws: Workspace, maxEntries = 1000): BuiltinTool<z.infer<typeof parameters>, LsDetails> {
  return {
    name: "ls",
    label: "List directory",
    kind: "read",
    description:
      'List one directory (not recursive), dotfiles included. Directories end with "/", symlinks show their target. ' +
      `At most ${maxEntries} entries. Use glob to find files anywhere in the tree.`,
    parameters,
    async execute({ path: input = "." }) {
      const resolved = await ws.resolve(input);
      if (!resolved.ok) return toolError(resolved.error);
      const { abs, rel } = resolved;
      let dirents: Dirent[];
      try {
        dirents = await readdir(abs, { withFileTypes: true });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOTDIR")
          return toolError(`${rel} is a file, not a directory. Use read to see it.`);
        return toolError(fsErrorText(error, rel));
      }
      dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      const truncated = dirents.length > maxEntries;
      const entries: ListEntry[] = [];
      const lines: string[] = [];
      for (const dirent of dirents.slice(0, maxEntries)) {
        const entryAbs = path.join(abs, dirent.name);
        if (dirent.isDirectory()) {
          entries.push({ name: dirent.name, type: "directory" });
          lines.push(`${dirent.name}/`);
        } else if (dirent.isSymbolicLink()) {
          entries.push({ name: dirent.name, type: "symlink" });
          const target = await readlink(entryAbs).catch(() => "?");
          lines.push(`${dirent.name} -> ${target}`);
        } else if (dirent.isFile()) {
          const size = await lstat(entryAbs).then(
            (info) => info.size,
            () => undefined,
          );
          entries.push(
            size === undefined
              ? { name: dirent.name, type: "file" }
              : { name: dirent.name, type: "file", size },
          );
          lines.push(dirent.name);
        } else {
          entries.push({ name: dirent.name, type: "other" });
          lines.push(dirent.name);
        }
      }
      const details: LsDetails = { path: rel, entries, truncated };
      if (lines.length === 0) return toolText(`${rel} is empty.`, details);
      let text = lines.join("\n");
      if (truncated)
        text += `\n\n[Showing ${maxEntries} of ${dirents.length} entries. Use glob with a pattern to narrow down.]`;
      return toolText(text, details);
    },
  };
}
