// The bundle the end-to-end tests spawn, and building it (no vitest hooks here: global setup uses it).
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const CLI_DIR = fileURLToPath(new URL("../../", import.meta.url));
export const TERN_JS = join(CLI_DIR, "dist", "tern.js");
export const REPO_ROOT = join(CLI_DIR, "..", "..");
const BUILD_SCRIPT = join(CLI_DIR, "scripts", "build.mjs");

/** Builds the bundle unless it is newer than every source file (global setup builds it once). */
export function ensureBuilt(): void {
  execFileSync(process.execPath, [BUILD_SCRIPT, "--if-stale", "--quiet"], { stdio: "inherit" });
}
