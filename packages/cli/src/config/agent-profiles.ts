// Sub-agent profiles from disk: `$TERN_HOME/agents/*.md`, then the project's `.tern/agents/*.md`
// (a project profile replaces a home one of the same name). A file that cannot be read or parsed
// becomes a warning; it never stops the run.

import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { type AgentProfile, parseAgentProfile } from "@tern/agent";

export const PROFILE_DIR = "agents";
export const PROJECT_PROFILE_DIR = join(".tern", PROFILE_DIR);

export function loadAgentProfiles(
  home: string,
  cwd: string,
): { profiles: AgentProfile[]; warnings: string[] } {
  const byName = new Map<string, AgentProfile>();
  const warnings: string[] = [];
  for (const dir of [join(home, PROFILE_DIR), join(cwd, PROJECT_PROFILE_DIR)]) {
    let names: string[];
    try {
      names = readdirSync(dir)
        .filter((name) => name.endsWith(".md"))
        .sort();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR") warnings.push(`${dir}: ${(error as Error).message}`);
      continue;
    }
    for (const file of names) {
      const path = join(dir, file);
      let text: string;
      try {
        text = readFileSync(path, "utf8");
      } catch (error) {
        warnings.push(`agent profile ${path}: ${(error as Error).message}; skipped`);
        continue;
      }
      const parsed = parseAgentProfile(basename(file, ".md"), text, path);
      if (parsed.ok) byName.set(parsed.profile.name, parsed.profile);
      else warnings.push(`agent profile ${parsed.error}; skipped`);
    }
  }
  return { profiles: [...byName.values()], warnings };
}
