// Project instructions: the AGENTS.md files (and CLAUDE.md, .github/copilot-instructions.md) people
// already keep for coding agents, read into the system prompt. Order, so the nearest file wins when
// they disagree: the user's $TERN_HOME/AGENTS.md first, then the workspace root (git root, or the
// cwd outside a repository), then each directory down to the cwd. A bad file (a symlink leaving its
// tree, unreadable, binary, too large) is skipped or cut with a warning; loading never throws.

import { existsSync, lstatSync, realpathSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { insideTree, readTextHead } from "./prompt-file.js";

/** The names looked for in each directory, in this order. */
export const INSTRUCTION_FILE_NAMES = ["AGENTS.md", "CLAUDE.md", join(".github", "copilot-instructions.md")];
/** Bytes read from one file at most; the rest is dropped with a visible note. */
export const DEFAULT_INSTRUCTIONS_MAX_BYTES = 32 * 1024;

export interface InstructionFile {
  /** Absolute path as found (not the symlink's target). */
  path: string;
  scope: "user" | "project";
  /** The file's size on disk. */
  bytes: number;
  /** True when only the first `maxBytes` were loaded. */
  capped: boolean;
  /** The loaded text (with the cap note when capped). */
  text: string;
}

export interface LoadedInstructions {
  /** The workspace root the search started from. */
  root: string;
  files: InstructionFile[];
  /** One line per skipped or odd file. */
  warnings: string[];
}

export interface InstructionOptions {
  /** Where the agent works. */
  cwd: string;
  /** tern's home folder (the CLI: $TERN_HOME): its AGENTS.md is the user's own instructions. */
  home?: string;
  /** Bytes read from one file at most. Default DEFAULT_INSTRUCTIONS_MAX_BYTES. */
  maxBytes?: number;
  /**
   * How the host's user raises the cap, named in the warning for a cut file (the CLI: its
   * variable). Default "maxBytes".
   */
  maxBytesSetting?: string;
}

/** The nearest directory at or above `cwd` holding `.git` (a repository or worktree), else `cwd`. */
export function workspaceRoot(cwd: string): string {
  for (let dir = cwd; ; dir = dirname(dir)) {
    if (existsSync(join(dir, ".git"))) return dir;
    if (dirname(dir) === dir) return cwd;
  }
}

/** Reads every instruction file for `cwd`, in prompt order. */
export function loadInstructions(options: InstructionOptions): LoadedInstructions {
  const warnings: string[] = [];
  const maxBytes = options.maxBytes ?? DEFAULT_INSTRUCTIONS_MAX_BYTES;
  const cap = { maxBytes, setting: options.maxBytesSetting ?? "maxBytes" };
  const root = workspaceRoot(options.cwd);
  const files: InstructionFile[] = [];
  const seen = new Set<string>();
  const add = (path: string, scope: InstructionFile["scope"], tree?: string) => {
    const file = readInstructionFile(path, scope, tree, cap, seen, warnings);
    if (file) files.push(file);
  };
  if (options.home) add(join(options.home, "AGENTS.md"), "user");
  for (const dir of directoriesDown(root, options.cwd)) {
    for (const name of INSTRUCTION_FILE_NAMES) add(join(dir, name), "project", root);
  }
  return { root, files, warnings };
}

/** The instructions as a system-prompt section, each file framed with its path. */
export function formatInstructions(files: readonly InstructionFile[]): string {
  if (files.length === 0) return "";
  const parts = [
    "Instructions from the user and the project follow, in order: the user's own first, then from the " +
      "workspace root down to the working directory. When they disagree, the later (nearer) one wins.",
  ];
  for (const file of files) {
    parts.push(`<instructions path="${file.path}" scope="${file.scope}">\n${file.text}\n</instructions>`);
  }
  return parts.join("\n\n");
}

/** `root`, then each directory below it on the way to `cwd`, then `cwd`. */
function directoriesDown(root: string, cwd: string): string[] {
  const rest = relative(root, cwd);
  if (rest === "" || rest.startsWith("..")) return [root];
  const dirs = [root];
  let dir = root;
  for (const part of rest.split(sep)) {
    dir = join(dir, part);
    dirs.push(dir);
  }
  return dirs;
}

function readInstructionFile(
  path: string,
  scope: InstructionFile["scope"],
  /** Project files must stay inside it; the user's own file may link anywhere. */
  tree: string | undefined,
  cap: { maxBytes: number; setting: string },
  seen: Set<string>,
  warnings: string[],
): InstructionFile | undefined {
  let real: string;
  try {
    real = realpathSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT") warnings.push(`instructions ${path}: ${(error as Error).message}; skipped`);
    else if (isDanglingLink(path)) warnings.push(`instructions ${path}: a symlink to nothing; skipped`);
    return undefined;
  }
  // A link may point within its tree (CLAUDE.md -> AGENTS.md is common), never out of it: a
  // checked-out repository must not pull ~/.ssh/config into the prompt.
  if (tree !== undefined && !insideTree(real, tree)) {
    warnings.push(`instructions ${path}: a symlink to ${real}, outside ${tree}; skipped`);
    return undefined;
  }
  if (seen.has(real)) return undefined;
  seen.add(real);
  const head = readTextHead(real, cap.maxBytes);
  if (!head.ok) {
    warnings.push(`instructions ${path}: ${head.error}; skipped`);
    return undefined;
  }
  const capped = head.loaded < head.bytes;
  if (capped)
    warnings.push(
      `instructions ${path}: ${head.bytes} bytes, only the first ${head.loaded} loaded (${cap.setting} raises the cap)`,
    );
  const note = capped
    ? `\n[tern: this file has ${head.bytes} bytes; only the first ${head.loaded} were loaded]`
    : "";
  return { path, scope, bytes: head.bytes, capped, text: head.text.trimEnd() + note };
}

/** Called after realpath said ENOENT: a link whose target is missing (not a missing file). */
function isDanglingLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
