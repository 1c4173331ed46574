// Finds Agent Skills: each `<dir>/<name>/SKILL.md` of the skill directories the host passes, in
// precedence order (the first directory's skill wins a duplicate name; the loser is a warning naming
// both files). The library reads no environment: the CLI decides which directories there are
// (the project's .tern/skills, .agents/skills, .claude/skills, then $TERN_HOME/skills). A bad
// skill is skipped with a warning naming its file; discovery never throws.

import { readdirSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import { insideTree, readTextHead } from "../prompt-file.js";
import { parseSkillFile, type SkillFile } from "./skill-file.js";

/** Bytes of one SKILL.md read at most; a larger file's instructions are cut with a note. */
export const DEFAULT_SKILL_MAX_BYTES = 256 * 1024;
/** Skill folders looked at in one directory at most (the rest is a warning). */
export const DEFAULT_SKILLS_PER_DIRECTORY = 500;
export const SKILL_FILE_NAME = "SKILL.md";

export interface SkillDirectory {
  /** A directory whose subfolders are skills. */
  dir: string;
  /** "project" skills are instructions from a repository; "user" skills are the user's own. */
  scope: "project" | "user";
  /** For project directories: the workspace root a skill's files must really lie in. */
  tree?: string;
}

export interface Skill extends SkillFile {
  /** The SKILL.md file (absolute, as found). */
  path: string;
  /** The skill's folder: its scripts and references live here. */
  dir: string;
  scope: SkillDirectory["scope"];
}

export interface LoadedSkills {
  /** In precedence order of their directories, by name within one. */
  skills: Skill[];
  warnings: string[];
}

export interface DiscoverOptions {
  maxBytes?: number;
  maxPerDirectory?: number;
}

export function discoverSkills(dirs: readonly SkillDirectory[], options: DiscoverOptions = {}): LoadedSkills {
  const maxBytes = options.maxBytes ?? DEFAULT_SKILL_MAX_BYTES;
  const maxPerDirectory = options.maxPerDirectory ?? DEFAULT_SKILLS_PER_DIRECTORY;
  const byName = new Map<string, Skill>();
  const warnings: string[] = [];
  const seen = new Set<string>();
  for (const where of dirs) {
    let folders: string[];
    try {
      folders = readdirSync(where.dir).sort();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR")
        warnings.push(`skills ${where.dir}: ${(error as Error).message}`);
      continue;
    }
    if (folders.length > maxPerDirectory) {
      warnings.push(
        `skills ${where.dir}: ${folders.length} entries; only the first ${maxPerDirectory} looked at`,
      );
      folders = folders.slice(0, maxPerDirectory);
    }
    for (const folder of folders) {
      if (folder.startsWith(".")) continue;
      const path = join(where.dir, folder, SKILL_FILE_NAME);
      const skill = readSkill(path, folder, where, maxBytes, warnings);
      if (!skill) continue;
      const real = realPathOf(path);
      if (real === undefined) continue; // gone since it was read
      if (seen.has(real)) continue; // the same folder linked from two directories
      seen.add(real);
      const winner = byName.get(skill.name);
      if (winner) {
        warnings.push(`skill "${skill.name}": ${path} is ignored; ${winner.path} has the same name and wins`);
        continue;
      }
      byName.set(skill.name, skill);
    }
  }
  return { skills: [...byName.values()], warnings };
}

function readSkill(
  path: string,
  folder: string,
  where: SkillDirectory,
  maxBytes: number,
  warnings: string[],
): Skill | undefined {
  const dir = join(where.dir, folder);
  try {
    if (!statSync(dir).isDirectory()) return undefined;
    statSync(path);
  } catch {
    return undefined; // a file beside the skills, or a folder without SKILL.md: not a skill
  }
  const skip = (why: string) => {
    warnings.push(`skill ${path}: ${why}; skipped`);
    return undefined;
  };
  if (where.tree !== undefined && !insideTree(path, where.tree))
    return skip(`it leads outside ${where.tree} (a symlink)`);
  const head = readTextHead(path, maxBytes);
  if (!head.ok) return skip(head.error);
  const cut = head.loaded < head.bytes ? { bytes: head.bytes, loaded: head.loaded } : undefined;
  const parsed = parseSkillFile(head.text, folder, cut);
  if (!parsed.ok) return skip(parsed.error);
  if (cut) warnings.push(`skill ${path}: ${head.bytes} bytes; only the first ${head.loaded} loaded`);
  return { ...parsed.skill, path, dir, scope: where.scope };
}

/** The file's real path, or undefined when it vanished after being read (discovery never throws). */
function realPathOf(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}
