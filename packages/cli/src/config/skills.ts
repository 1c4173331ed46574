// The workspace's Agent Skills for the coding agent: where they are looked for, and whose
// `allowed-tools` are trusted. Directories, first wins a duplicate name: the project's
// .tern/skills, then .agents/skills and .claude/skills (the folders other agents use), all at the
// workspace root, then the user's $TERN_HOME/skills. A skill is instructions, not permissions: a
// user's skill's allowed-tools are allow rules like the user's own; a project's (a repository can
// ship them) widen nothing until the user approved that exact set once for this project through
// the approval of project rules (`tern hooks approve`, the same store and command as the project's
// allow rules and hooks). Until then those calls are asked like any other, and the run says so once.

import path from "node:path";
import {
  discoverSkills,
  type LoadedSkills,
  parseRule,
  type Skill,
  type SkillDirectory,
  workspaceRoot,
} from "@tern/tools";
import { hookApprovals } from "./hooks.js";

/** The key of the project skills' allowed-tools in the approvals file (beside hooks and rules). */
const APPROVAL_KEY = "skill-allowed-tools";
/** The project's skill folders under the workspace root, in precedence order. */
export const PROJECT_SKILL_DIRS = [".tern/skills", ".agents/skills", ".claude/skills"];
/** The user's skill folder under $TERN_HOME. */
export const USER_SKILL_DIR = "skills";

export type SkillStatus = "instructions" | "allowed-tools in effect" | "allowed-tools await approval";

export interface WorkspaceSkills {
  skills: Skill[];
  /** Per skill name: what its allowed-tools do in this run. */
  status: Map<string, SkillStatus>;
  /** The allowed-tools rules in effect (the user's skills', and the project's once approved). */
  allow: string[];
  warnings: string[];
}

/** The directories skills are read from for a workspace at `cwd`, first wins. */
export function skillDirectories(cwd: string, home: string): SkillDirectory[] {
  const root = workspaceRoot(cwd);
  return [
    ...PROJECT_SKILL_DIRS.map((dir) => ({
      dir: path.join(root, dir),
      scope: "project" as const,
      tree: root,
    })),
    { dir: path.join(home, USER_SKILL_DIR), scope: "user" },
  ];
}

/** The workspace's skills, project allowed-tools trusted only when the approval store says so. */
export async function loadSkills(cwd: string, home: string): Promise<WorkspaceSkills> {
  const root = workspaceRoot(cwd);
  const loaded = discoverSkills(skillDirectories(cwd, home));
  const asked = projectAllowedTools(loaded.skills, root);
  const approved =
    asked.length > 0 &&
    (await hookApprovals(home)
      .isApproved(root, APPROVAL_KEY, asked)
      .catch(() => false));
  return classify(
    loaded,
    approved,
    "not in effect until approved (review the skill, then tern hooks approve)",
  );
}

/**
 * The skills of a workspace whose approvals were not read (a served session under an
 * --allow-root): project skills' allowed-tools wait, with a warning saying `why`.
 */
export function unapprovedSkills(cwd: string, home: string, why: string): WorkspaceSkills {
  return classify(discoverSkills(skillDirectories(cwd, home)), false, why);
}

/** Approves the project skills' current allowed-tools (tern hooks approve); returns their names. */
export async function approveProjectSkills(cwd: string, home: string): Promise<string[]> {
  const root = workspaceRoot(cwd);
  const asked = projectAllowedTools(discoverSkills(skillDirectories(cwd, home)).skills, root);
  if (asked.length > 0) await hookApprovals(home).approve(root, APPROVAL_KEY, asked);
  return asked.map((entry) => entry.name);
}

/** What an approval covers: each project skill with allowed-tools, by name, file and rules. */
function projectAllowedTools(skills: readonly Skill[], root: string) {
  return skills
    .filter((skill) => skill.scope === "project" && skill.allowedTools.length > 0)
    .map((skill) => ({
      name: skill.name,
      file: path.relative(root, skill.path),
      allowedTools: skill.allowedTools,
    }));
}

function classify(loaded: LoadedSkills, projectApproved: boolean, why: string): WorkspaceSkills {
  const result: WorkspaceSkills = {
    skills: loaded.skills,
    status: new Map(),
    allow: [],
    warnings: [...loaded.warnings],
  };
  for (const skill of loaded.skills) {
    const rules = validRules(skill, result.warnings);
    if (rules.length === 0) result.status.set(skill.name, "instructions");
    else if (skill.scope === "user" || projectApproved) {
      result.status.set(skill.name, "allowed-tools in effect");
      result.allow.push(...rules);
    } else {
      result.status.set(skill.name, "allowed-tools await approval");
      result.warnings.push(
        `skill "${skill.name}" (${skill.path}): its allowed-tools (${rules.join(", ")}) are ${why}; those calls are asked as usual`,
      );
    }
  }
  return result;
}

/** The skill's allowed-tools that parse as tern rules; each other one is a warning. */
function validRules(skill: Skill, warnings: string[]): string[] {
  const rules: string[] = [];
  for (const text of skill.allowedTools) {
    try {
      parseRule(text);
      rules.push(text);
    } catch (error) {
      warnings.push(
        `skill ${skill.path}: allowed-tools entry ${JSON.stringify(text)} ignored: ${(error as Error).message}`,
      );
    }
  }
  return rules;
}
