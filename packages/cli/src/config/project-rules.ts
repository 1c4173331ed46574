// The project's permission rules: `allow` and `deny` in `<workspace root>/.tern/config.json`,
// added to the user's rules for sessions in that workspace, and where "always allow, save for this
// project" in chat writes. A repository can ship this file, so its `allow` rules widen nothing
// until the user approved that exact list once for this project (`tern hooks approve`, or saving
// a rule from chat, which is that approval), remembered like project hooks; `deny` rules only
// narrow and always apply. Every run names the rules it took from the file. Other keys of the file
// are kept as they are.

import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseRule, workspaceRoot } from "@tern/tools";
import { hookApprovals } from "./hooks.js";
import { PROJECT_SETTINGS_FILE, readProjectSettings } from "./project-settings.js";

/**
 * The agent's file tools may not change `.tern/` (its permission rules and commands): a model that
 * could would grant itself permissions for the next run. `bash` can still write there inside the
 * workspace; every run therefore names the rules it read from the file.
 */
export const PROTECT_PROJECT_CONFIG = ["write(.tern/**)", "edit(.tern/**)"];

/** The key of the project's allow list in the approvals file (beside its hooks'). */
const APPROVAL_KEY = "permission-allow-rules";

export interface ProjectRules {
  path: string;
  /** In effect: the file's allow rules when approved, else none. */
  allow: string[];
  deny: string[];
  /** The file's allow rules that wait for approval (not in effect). */
  unapproved: string[];
  warnings: string[];
}

/** The rules of the workspace's `.tern/config.json`; its allow rules only once approved. */
export async function loadProjectRules(cwd: string, home: string): Promise<ProjectRules> {
  const rules = readProjectRules(cwd);
  if (rules.allow.length === 0) return rules;
  const approved = await hookApprovals(home)
    .isApproved(workspaceRoot(cwd), APPROVAL_KEY, rules.allow)
    .catch(() => false);
  if (approved) return rules;
  return withheld(rules, "not in effect until approved (review them, then tern hooks approve)");
}

/**
 * The rules of a workspace whose approval was not read (a served session under an --allow-root:
 * a server reads approvals once, for its own workspace): the deny rules, which need none; the
 * allow rules wait, with a warning saying why.
 */
export function denyOnlyProjectRules(cwd: string, why: string): ProjectRules {
  const rules = readProjectRules(cwd);
  return rules.allow.length === 0 ? rules : withheld(rules, why);
}

/** What a run says about the rules it took from the file (every time: nothing widens unnoticed). */
export function projectRulesLine(rules: ProjectRules): string | undefined {
  const taken = [...rules.allow.map((rule) => `allow ${rule}`), ...rules.deny.map((rule) => `deny ${rule}`)];
  return taken.length > 0 ? `permission rules from ${rules.path}: ${taken.join(", ")}` : undefined;
}

function withheld(rules: ProjectRules, why: string): ProjectRules {
  const warning = `${rules.path}: allow rules ${why}: ${rules.allow.join(", ")}`;
  return { ...rules, allow: [], unapproved: rules.allow, warnings: [...rules.warnings, warning] };
}

/** Approves the project's current allow list (tern hooks approve, or a rule saved from chat). */
export async function approveProjectRules(cwd: string, home: string): Promise<string[]> {
  const { allow } = readProjectRules(cwd);
  if (allow.length > 0) await hookApprovals(home).approve(workspaceRoot(cwd), APPROVAL_KEY, allow);
  return allow;
}

function readProjectRules(cwd: string): ProjectRules {
  const file = path.join(workspaceRoot(cwd), PROJECT_SETTINGS_FILE);
  const rules: ProjectRules = { path: file, allow: [], deny: [], unapproved: [], warnings: [] };
  const raw = readProjectSettings(file, rules.warnings);
  for (const key of ["allow", "deny"] as const) {
    const value = raw?.[key];
    if (value === undefined) continue;
    if (!Array.isArray(value)) {
      rules.warnings.push(`${file}: "${key}" must be an array of rule strings; ignored`);
      continue;
    }
    for (const text of value) {
      try {
        if (typeof text !== "string") throw new Error("not a string");
        parseRule(text);
        rules[key].push(text);
      } catch (error) {
        rules.warnings.push(
          `${file}: ${key} rule ${JSON.stringify(text)} ignored: ${(error as Error).message}`,
        );
      }
    }
  }
  return rules;
}

/**
 * Adds allow rules to the project's file (creating it) and approves the resulting list: the user
 * chose them. Returns the file's path; throws when it cannot write.
 */
export async function saveProjectAllow(cwd: string, home: string, added: readonly string[]): Promise<string> {
  const file = path.join(workspaceRoot(cwd), PROJECT_SETTINGS_FILE);
  const problems: string[] = [];
  const raw = readProjectSettings(file, problems);
  if (problems.length > 0) throw new Error(`${problems[0]}; not changed`);
  const config = raw ?? {};
  const allow = Array.isArray(config.allow) ? [...config.allow] : [];
  for (const rule of added) if (!allow.includes(rule)) allow.push(rule);
  mkdirSync(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify({ ...config, allow }, null, 2)}\n`);
  renameSync(temp, file);
  await approveProjectRules(cwd, home);
  return file;
}
