// The skills' part of the system prompt: progressive disclosure's first level, only each skill's
// name and description, in a compact list with a cap on entries and characters. What does not fit
// is counted in a note that sends the model to the `skill` tool, which lists them all; a skill's
// instructions reach the model only when it calls that tool.

import type { Skill } from "./discover.js";

/** Skills listed in the system prompt at most. */
export const DEFAULT_SKILLS_LISTED = 50;
/** Characters the list may take at most (descriptions are up to 1024 characters each). */
export const DEFAULT_SKILLS_SECTION_CHARS = 8000;

export interface SkillsSectionOptions {
  maxListed?: number;
  maxChars?: number;
  /** The tool's name, as the model sees it. */
  toolName: string;
}

export function formatSkillsSection(skills: readonly Skill[], options: SkillsSectionOptions): string {
  if (skills.length === 0) return "";
  const maxListed = options.maxListed ?? DEFAULT_SKILLS_LISTED;
  const maxChars = options.maxChars ?? DEFAULT_SKILLS_SECTION_CHARS;
  const lines: string[] = [];
  let chars = 0;
  for (const skill of skills) {
    const line = `- ${skill.name}: ${skill.description.replace(/\s+/g, " ")}`;
    if (lines.length >= maxListed || chars + line.length > maxChars) break;
    lines.push(line);
    chars += line.length + 1;
  }
  const left = skills.length - lines.length;
  if (left > 0)
    lines.push(
      `… ${left} more skill${left === 1 ? "" : "s"} not listed; use the ${options.toolName} tool to list them`,
    );
  return [
    `Skills: instructions for particular tasks. When a task matches one, call ${options.toolName}({"name": …}) first: ` +
      "it returns the skill's instructions and its files, which you read with read and run with bash as usual.",
    ...lines,
  ].join("\n");
}
