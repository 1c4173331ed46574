// The project's settings file, `<workspace root>/.tern/config.json`: read once as an object by
// whoever needs a part of it (hooks: config/hooks.ts; permission rules: config/project-rules.ts).
// A missing file is no settings; an unreadable or malformed one is a warning, never a failure.
import { readFileSync } from "node:fs";
import path from "node:path";

export const PROJECT_SETTINGS_FILE = path.join(".tern", "config.json");

/** The keys a project's settings may hold; others are kept in the file but warned about. */
export const PROJECT_SETTINGS_KEYS: readonly string[] = ["hooks", "allow", "deny"];

/** The file's object; undefined when there is none, or it is unreadable (with a warning). */
export function readProjectSettings(file: string, warnings: string[]): Record<string, unknown> | undefined {
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
    warnings.push(`${file}: must hold a JSON object; ignored`);
  } catch (error) {
    warnings.push(`${file}: not valid JSON (${(error as Error).message}); ignored`);
  }
  return undefined;
}
