// One Agent Skill's SKILL.md (agentskills.io): YAML front matter with `name` and `description`
// (and optionally `allowed-tools`, `license`, `compatibility`, `metadata`), then Markdown
// instructions. Parsing never throws: a file that breaks the format is a problem in words the
// loader turns into a warning naming the file; an oversized body is cut with a visible note.

import { parseFrontMatter } from "@tern/agent";

/** The specification's limits. */
export const MAX_SKILL_NAME_CHARS = 64;
export const MAX_SKILL_DESCRIPTION_CHARS = 1024;
const MAX_COMPATIBILITY_CHARS = 500;
/** Lowercase letters and digits in hyphen-separated words: no leading, trailing or double hyphen. */
const SKILL_NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/** Claude Code's tool names, as skills written for it spell them in `allowed-tools`. */
const TOOL_ALIASES: Record<string, string> = {
  Bash: "bash",
  Read: "read",
  Write: "write",
  Edit: "edit",
  MultiEdit: "edit",
  Glob: "glob",
  Grep: "grep",
  LS: "ls",
  WebFetch: "web_fetch",
  WebSearch: "web_search",
  TodoWrite: "todo_write",
};

export interface SkillFile {
  name: string;
  description: string;
  /** `allowed-tools` as tern rule texts (not yet checked as rules, not yet trusted). */
  allowedTools: string[];
  /** The Markdown instructions after the front matter (with a note when the file was cut). */
  body: string;
  /** True when only the head of the file was read (the loader's size cap). */
  truncated: boolean;
}

export type SkillParse = { ok: true; skill: SkillFile } | { ok: false; error: string };

/**
 * Parses SKILL.md text. `folder` is the name of the skill's directory, which the name must match;
 * `cut` says the text is the head of a larger file (`bytes` in all, `loaded` read).
 */
export function parseSkillFile(
  text: string,
  folder: string,
  cut?: { bytes: number; loaded: number },
): SkillParse {
  const parts = parseFrontMatter(text);
  if (!parts.ok) return parts;
  const data = parts.data;
  if (typeof data !== "object" || data === null || Array.isArray(data))
    return { ok: false, error: "the front matter must be a mapping of fields" };
  const fields = data as Record<string, unknown>;
  const { name, description } = fields;
  if (typeof name !== "string" || name.trim() === "") return { ok: false, error: "name is missing" };
  if (name.length > MAX_SKILL_NAME_CHARS || !SKILL_NAME.test(name))
    return {
      ok: false,
      error: `name "${name}" must be at most ${MAX_SKILL_NAME_CHARS} lowercase letters, digits and single hyphens, not at either end`,
    };
  if (name !== folder) return { ok: false, error: `name "${name}" must match its folder "${folder}"` };
  if (typeof description !== "string" || description.trim() === "")
    return { ok: false, error: "description is missing" };
  if (description.length > MAX_SKILL_DESCRIPTION_CHARS)
    return {
      ok: false,
      error: `description has ${description.length} characters; at most ${MAX_SKILL_DESCRIPTION_CHARS}`,
    };
  const { compatibility } = fields;
  if (
    compatibility !== undefined &&
    (typeof compatibility !== "string" || compatibility.length > MAX_COMPATIBILITY_CHARS)
  )
    return {
      ok: false,
      error: `compatibility must be text of at most ${MAX_COMPATIBILITY_CHARS} characters`,
    };
  const allowedTools = parseAllowedTools(fields["allowed-tools"]);
  if (typeof allowedTools === "string") return { ok: false, error: allowedTools };
  const body = cut
    ? `${parts.body}\n[tern: this SKILL.md has ${cut.bytes} bytes; only the first ${cut.loaded} were loaded]`
    : parts.body;
  return {
    ok: true,
    skill: { name, description: description.trim(), allowedTools, body, truncated: cut !== undefined },
  };
}

/**
 * `allowed-tools` as rule texts: the specification's space-separated string (a space inside
 * parentheses belongs to the rule: `Bash(git status:*)`), commas, or a YAML list. Claude Code's tool
 * names become tern's (`Bash(git:*)` → `bash(git:*)`). A problem comes back as a string.
 */
function parseAllowedTools(value: unknown): string[] | string {
  if (value === undefined || value === null) return [];
  const items = Array.isArray(value) ? value : [value];
  const rules: string[] = [];
  for (const item of items) {
    if (typeof item !== "string") return "allowed-tools must be a string or a list of strings";
    for (const entry of splitOutsideParentheses(item)) rules.push(renamed(entry));
  }
  return rules;
}

function splitOutsideParentheses(text: string): string[] {
  const entries: string[] = [];
  let depth = 0;
  let current = "";
  for (const char of text) {
    if (char === "(") depth++;
    else if (char === ")") depth = Math.max(0, depth - 1);
    if (depth === 0 && (char === "," || /\s/.test(char))) {
      if (current !== "") entries.push(current);
      current = "";
    } else current += char;
  }
  if (current !== "") entries.push(current);
  return entries;
}

function renamed(entry: string): string {
  const open = entry.indexOf("(");
  const tool = open === -1 ? entry : entry.slice(0, open);
  const alias = TOOL_ALIASES[tool];
  return alias === undefined ? entry : alias + entry.slice(tool.length);
}
