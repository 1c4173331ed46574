// The project's permission rules: `allow` and `deny` in `<workspace>/.tern/config.json`, added to
// the user's rules for sessions in that workspace, and where "always allow, save for this project"
// in chat writes. A repository can ship this file, so every run names the rules it took from it
// (a cloned project cannot allow commands silently). Other keys of the file are kept as they are.

import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseRule } from "@tern/tools";

export const PROJECT_CONFIG = path.join(".tern", "config.json");

/**
 * The agent's file tools may not change `.tern/` (its permission rules and commands): a model that
 * could would grant itself permissions for the next run. `bash` can still write there inside the
 * workspace; every run therefore names the rules it read from the file.
 */
export const PROTECT_PROJECT_CONFIG = ["write(.tern/**)", "edit(.tern/**)"];

export interface ProjectRules {
  path: string;
  allow: string[];
  deny: string[];
  warnings: string[];
}

export function loadProjectRules(cwd: string): ProjectRules {
  const file = path.join(cwd, PROJECT_CONFIG);
  const rules: ProjectRules = { path: file, allow: [], deny: [], warnings: [] };
  const raw = readObject(file, rules.warnings);
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

/** Adds allow rules to the project's file (creating it); returns its path. Throws when it cannot write. */
export function saveProjectAllow(cwd: string, added: readonly string[]): string {
  const file = path.join(cwd, PROJECT_CONFIG);
  const problems: string[] = [];
  const raw = readObject(file, problems);
  if (problems.length > 0) throw new Error(`${problems[0]}; not changed`);
  const config = raw ?? {};
  const allow = Array.isArray(config.allow) ? [...config.allow] : [];
  for (const rule of added) if (!allow.includes(rule)) allow.push(rule);
  mkdirSync(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify({ ...config, allow }, null, 2)}\n`);
  renameSync(temp, file);
  return file;
}

/** The file's object; undefined when there is none, or it is unreadable (with a warning). */
function readObject(file: string, warnings: string[]): Record<string, unknown> | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT")
      warnings.push(`${file}: ${(error as Error).message}`);
    return undefined;
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
    warnings.push(`${file}: must hold a JSON object`);
  } catch (error) {
    warnings.push(`${file}: not valid JSON (${(error as Error).message})`);
  }
  return undefined;
}
