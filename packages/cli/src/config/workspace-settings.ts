// What the coding agent of one workspace takes from settings files besides config.json's options:
// the settings hooks (the user's, then the project's once approved), the project's permission
// rules (deny always, allow once approved) and the Agent Skills (a project skill's allowed-tools
// once approved). Approvals are read asynchronously, so this is loaded
// before the agent is built: once per run by the CLI, once at startup by a server, whose sessions
// then pick theirs synchronously by workspace root (see `servedWorkspaces`).
import { workspaceRoot } from "@tern/tools";
import { type HookSetting, loadHookSettings } from "./hooks.js";
import {
  denyOnlyProjectRules,
  loadProjectRules,
  type ProjectRules,
  projectRulesLine,
} from "./project-rules.js";
import type { AgentSettings } from "./settings.js";
import { loadSkills, unapprovedSkills, type WorkspaceSkills } from "./skills.js";

export interface WorkspaceSettings {
  /** The settings hooks that run in this workspace. */
  hooks: readonly HookSetting[];
  /** The project's rules in effect here (added to the user's by the coding agent). */
  rules: ProjectRules;
  /** The skills, and the allowed-tools rules in effect (added to the allow rules). */
  skills: WorkspaceSkills;
}

export interface LoadedWorkspace {
  workspace: WorkspaceSettings;
  /** The user's hooks alone (what a workspace whose approvals were not read runs). */
  userHooks: readonly HookSetting[];
  /** Everything worth telling the user, the rules taken from the project's file included. */
  warnings: string[];
}

/** The hooks and project rules of the workspace at `cwd`, approvals read now. */
export async function loadWorkspaceSettings(settings: AgentSettings, cwd: string): Promise<LoadedWorkspace> {
  const [hooks, rules, skills] = await Promise.all([
    loadHookSettings(settings.home, settings.config.config.hooks, settings.config.path, workspaceRoot(cwd)),
    loadProjectRules(cwd, settings.home),
    loadSkills(cwd, settings.home),
  ]);
  const line = projectRulesLine(rules);
  return {
    workspace: { hooks: hooks.active, rules, skills },
    userHooks: hooks.user,
    warnings: [...hooks.warnings, ...rules.warnings, ...(line ? [line] : []), ...skills.warnings],
  };
}

/**
 * A server's choice per session. A session whose workspace root is the served one (--cwd) gets
 * what was loaded and approved at startup; a session elsewhere (under an --allow-root) gets the
 * user's hooks and its own project's deny rules, read when it opens, since they need no approval,
 * while that project's hooks and allow rules stay off (the server read no approval for it). The
 * startup warnings go out once; a session elsewhere says its own when it opens.
 */
export async function servedWorkspaces(
  settings: AgentSettings,
  warn: (message: string) => void,
): Promise<(cwd: string) => WorkspaceSettings> {
  const served = await loadWorkspaceSettings(settings, settings.cwd);
  for (const warning of served.warnings) warn(warning);
  const servedRoot = workspaceRoot(settings.cwd);
  return (cwd) => {
    if (workspaceRoot(cwd) === servedRoot) return served.workspace;
    const rules = denyOnlyProjectRules(
      cwd,
      "not in effect in this server (it uses the approved rules of its --cwd only)",
    );
    const skills = unapprovedSkills(
      cwd,
      settings.home,
      "not in effect in this server (it uses the approvals of its --cwd only)",
    );
    const line = projectRulesLine(rules);
    for (const warning of [...rules.warnings, ...(line ? [line] : []), ...skills.warnings]) warn(warning);
    return { hooks: served.userHooks, rules, skills };
  };
}
