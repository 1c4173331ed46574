// What the user sees of the Agent Skills: `tern skills ls` and chat's /skills (name, description,
// source path, status), the run header's count and names, and the `skills_loaded` line of
// `--json` (what the system prompt lists; the bodies reach the model only through the tool).
import type { WorkspaceSkills } from "../config/skills.js";
import { oneLine, padEnd } from "./format.js";
import type { Style } from "./style.js";

/** Names the run header shows at most; the count says the rest. */
const HEADER_NAMES = 8;

export interface SkillRow {
  name: string;
  description: string;
  path: string;
  scope: "project" | "user";
  status: string;
  allowedTools: string[];
  truncated: boolean;
}

export function skillRows(loaded: WorkspaceSkills): SkillRow[] {
  return loaded.skills.map((skill) => ({
    name: skill.name,
    description: skill.description,
    path: skill.path,
    scope: skill.scope,
    status: loaded.status.get(skill.name) ?? "instructions",
    allowedTools: skill.allowedTools,
    truncated: skill.truncated,
  }));
}

/** The listing: one line per skill, its source and status under it. */
export function skillLines(loaded: WorkspaceSkills, style: Style): string[] {
  const rows = skillRows(loaded);
  if (rows.length === 0)
    return [style.dim("no skills (.tern/skills, .agents/skills, .claude/skills, $TERN_HOME/skills)")];
  const width = Math.max(...rows.map((row) => row.name.length));
  return rows.flatMap((row) => [
    `${style.bold(padEnd(row.name, width))}  ${oneLine(row.description, 100)}`,
    style.dim(`${" ".repeat(width)}  ${row.scope} · ${row.path} · ${statusText(row, style)}`),
  ]);
}

/** The status, with the rules it is about (what an approval would let run without asking). */
function statusText(row: SkillRow, style: Style): string {
  if (row.status === "instructions") return row.status;
  const text = `${row.status} (${row.allowedTools.join(" ")})`;
  return row.status === "allowed-tools await approval" ? style.yellow(`${text}: tern hooks approve`) : text;
}

/** The run header's part, or undefined when there are no skills. */
export function skillsHeader(loaded: WorkspaceSkills): string | undefined {
  const names = loaded.skills.map((skill) => skill.name);
  if (names.length === 0) return undefined;
  const shown = names.slice(0, HEADER_NAMES).join(", ");
  return `skills (${names.length}): ${shown}${names.length > HEADER_NAMES ? ", …" : ""}`;
}

/** The `--json` line of a run. */
export function skillsEvent(loaded: WorkspaceSkills): Record<string, unknown> {
  return {
    type: "skills_loaded",
    skills: skillRows(loaded).map(({ name, path, scope, status }) => ({ name, path, scope, status })),
    warnings: loaded.warnings,
  };
}
