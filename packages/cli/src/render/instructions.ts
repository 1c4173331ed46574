// What the user sees of the project instructions: the `tern run` and chat header line, chat's
// /context, and the `instructions_loaded` line of `--json` (paths, sizes, capped flags; not the
// text, which is in the system prompt).
import { relative, sep } from "node:path";
import type { LoadedInstructions } from "@tern/tools";

/** A path as short as it is clear: relative to the cwd when under it, else absolute. */
function shortPath(path: string, cwd: string): string {
  const rest = relative(cwd, path);
  return rest !== "" && !rest.startsWith("..") && !rest.startsWith(sep) ? rest : path;
}

/** One label per loaded file: its path, and its size when it was capped. */
export function instructionLabels(loaded: LoadedInstructions, cwd: string): string[] {
  return loaded.files.map(
    (file) => `${shortPath(file.path, cwd)}${file.capped ? ` (capped: ${file.bytes} bytes)` : ""}`,
  );
}

/** The header line naming the loaded files, or undefined when there are none. */
export function instructionsHeader(loaded: LoadedInstructions, cwd: string): string | undefined {
  const labels = instructionLabels(loaded, cwd);
  return labels.length > 0 ? `instructions: ${labels.join(", ")}` : undefined;
}

/** The `--json` line: which files the system prompt holds. */
export function instructionsEvent(loaded: LoadedInstructions): Record<string, unknown> {
  return {
    type: "instructions_loaded",
    root: loaded.root,
    files: loaded.files.map(({ path, scope, bytes, capped }) => ({ path, scope, bytes, capped })),
    warnings: loaded.warnings,
  };
}
