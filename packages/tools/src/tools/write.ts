import { mkdir, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { formatBytes } from "../text.js";
import type { BuiltinTool, WriteDetails } from "../types.js";
import type { Workspace } from "../workspace.js";
import { fsErrorText, toolError, toolText } from "./result.js";

const parameters = z.object({
  path: z
    .string()
    .describe("File to write, relative to the workspace root. Missing parent directories are created."),
  content: z.string().describe("The complete new content of the file."),
});

export function writeTool(ws: Workspace): BuiltinTool<z.infer<typeof parameters>, WriteDetails> {
  return {
    name: "write",
    label: "Write file",
    kind: "write",
    description:
      "Create a file or replace its whole content. Parent directories are created. " +
      "To change part of an existing file, prefer edit, which sends only the changed text.",
    parameters,
    async execute({ path: input, content }) {
      const resolved = await ws.resolve(input);
      if (!resolved.ok) return toolError(resolved.error);
      const { abs, rel, exists } = resolved;
      try {
        if (exists) {
          const info = await stat(abs);
          if (info.isDirectory()) return toolError(`${rel} is a directory; give a file path.`);
          if (!info.isFile()) return toolError(`${rel} is not a regular file; it is not overwritten.`);
          const linked = ws.checkLinks(info, rel);
          if (linked) return toolError(linked);
        }
        await mkdir(path.dirname(abs), { recursive: true });
        const bytes = Buffer.byteLength(content);
        await writeFile(abs, content, "utf8");
        const verb = exists ? "Overwrote" : "Created";
        return toolText(`${verb} ${rel} (${bytes} bytes${bytes >= 1000 ? `, ${formatBytes(bytes)}` : ""}).`, {
          path: rel,
          bytes,
          created: !exists,
        });
      } catch (error) {
        return toolError(fsErrorText(error, rel));
      }
    },
  };
}
