// The `skill` tool: progressive disclosure's second level. `skill({name})` returns the skill's
// instructions and the list of the files in its folder (paths only: the model reads them with
// `read` and runs its scripts with `bash`, both under the run's permissions and sandbox, so a skill
// opens no way around them). Without a name it lists every skill, those the system prompt's capped
// list left out included. It only looks, so it is a "read" tool.

import { type Dirent, readdirSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { toolError } from "../tools/result.js";
import type { BuiltinTool } from "../types.js";
import { displayPath } from "../workspace.js";
import { SKILL_FILE_NAME, type Skill } from "./discover.js";

export const SKILL_TOOL_NAME = "skill";
/** Files of a skill's folder listed at most. */
export const DEFAULT_SKILL_FILES_LISTED = 100;
const SKIPPED_FOLDERS = new Set(["node_modules", ".git"]);

export interface SkillToolOptions {
  /** Paths under it are shown relative to it (the workspace), others absolute. */
  cwd: string;
  maxFiles?: number;
  /** One more line for a skill's result (the host's word on its allowed-tools). */
  note?: (skill: Skill) => string | undefined;
}

export interface SkillDetails {
  /** The skill used; absent when the call listed them. */
  name?: string;
  path?: string;
  files?: string[];
}

const parameters = z.object({
  name: z.string().optional().describe("The skill's name; leave it out to list every skill."),
});

export function skillTool(
  skills: readonly Skill[],
  options: SkillToolOptions,
): BuiltinTool<z.infer<typeof parameters>, SkillDetails> {
  const shown = (path: string) => displayPath(path, options.cwd);
  return {
    name: SKILL_TOOL_NAME,
    label: "Use skill",
    kind: "read",
    description:
      "Load a skill's instructions (and the list of its files) by name before doing the task it is for; " +
      "call it without a name to list every skill.",
    parameters,
    execute({ name }) {
      if (name === undefined || name.trim() === "") {
        const list = skills.map((skill) => `- ${skill.name}: ${skill.description}`);
        return {
          content: list.length > 0 ? `Skills:\n${list.join("\n")}` : "There are no skills.",
          details: {},
        };
      }
      const skill = skills.find((candidate) => candidate.name === name.trim());
      if (!skill) {
        const names = skills.map((candidate) => candidate.name).join(", ");
        return toolError(`There is no skill "${name}". Skills: ${names || "none"}.`);
      }
      const files = listFiles(skill.dir, options.maxFiles ?? DEFAULT_SKILL_FILES_LISTED);
      const note = options.note?.(skill);
      const lines = [
        `<skill name="${skill.name}" path="${shown(skill.path)}">`,
        skill.body,
        "</skill>",
        "",
        files.paths.length > 0
          ? `Files of this skill (read them with read, run scripts with bash, only when the instructions call for them):\n${files.paths.map((file) => `- ${shown(file)}`).join("\n")}${files.cut ? `\n… and more (only the first ${files.paths.length} are listed)` : ""}`
          : "This skill has no other files.",
        ...(note ? ["", note] : []),
      ];
      return {
        content: lines.join("\n"),
        details: { name: skill.name, path: skill.path, files: files.paths },
      };
    },
  };
}

/**
 * The folder's files below it, breadth first, symlinks listed but not followed; the walk stops at
 * `max` files, so a skill folder holding a huge tree costs no more than a full list.
 */
function listFiles(dir: string, max: number): { paths: string[]; cut: boolean } {
  const paths: string[] = [];
  const queue = [dir];
  while (queue.length > 0) {
    const current = queue.shift()!;
    let entries: Dirent[];
    try {
      entries = readdirSync(current, { withFileTypes: true });
    } catch {
      continue;
    }
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_FOLDERS.has(entry.name)) queue.push(path);
      } else if (!(current === dir && entry.name === SKILL_FILE_NAME)) {
        if (paths.length === max) return { paths, cut: true };
        paths.push(path);
      }
    }
  }
  return { paths, cut: false };
}
