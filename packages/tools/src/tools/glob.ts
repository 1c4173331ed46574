import { stat } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { compileGlob } from "../glob-match.js";
import type { BuiltinTool, GlobDetails } from "../types.js";
import { walkFiles } from "../walk.js";
import type { Workspace } from "../workspace.js";
import { fsErrorText, toolError, toolText } from "./result.js";

const parameters = z.object({
  pattern: z
    .string()
    .min(1)
    .describe(
      'Glob such as "**/*.ts" or "src/**/test-*.js". A pattern without "/" matches file names at any depth.',
    ),
  path: z.string().optional().describe('Directory to search, relative to the workspace root. Default ".".'),
});

export function globTool(
  ws: Workspace,
  maxResults = 500,
): BuiltinTool<z.infer<typeof parameters>, GlobDetails> {
  return {
    name: "glob",
    label: "Find files",
    kind: "read",
    description:
      "Find files by glob pattern (*, **, ?, [abc], {a,b}), matched against paths relative to the search directory. " +
      `Files ignored by .gitignore, .git and node_modules are skipped. Returns workspace-relative paths, at most ${maxResults}.`,
    parameters,
    async execute({ pattern, path: input = "." }, { signal }) {
      const resolved = await ws.resolve(input);
      if (!resolved.ok) return toolError(resolved.error);
      const { abs, rel } = resolved;
      try {
        if (!(await stat(abs)).isDirectory())
          return toolError(`${rel} is not a directory; glob searches directories.`);
      } catch (error) {
        return toolError(fsErrorText(error, rel));
      }
      let isMatch: (p: string) => boolean;
      try {
        isMatch = await compileGlob(pattern);
      } catch (error) {
        return toolError(`Invalid glob pattern ${JSON.stringify(pattern)}: ${(error as Error).message}`);
      }
      const files: string[] = [];
      let truncated = false;
      for await (const file of walkFiles(ws, abs, { signal })) {
        const sub = path.relative(abs, file.abs).split(path.sep).join("/");
        if (!isMatch(sub)) continue;
        if (files.length === maxResults) {
          truncated = true;
          break;
        }
        files.push(file.rel);
      }
      if (signal.aborted) return toolError("The search was aborted.");
      files.sort();
      const details: GlobDetails = { pattern, path: rel, files, truncated };
      if (files.length === 0)
        return toolText(`No files match ${JSON.stringify(pattern)} in ${rel}.`, details);
      let text = files.join("\n");
      if (truncated) text += `\n\n[Showing the first ${maxResults} matches. Use a narrower pattern or path.]`;
      return toolText(text, details);
    },
  };
}
