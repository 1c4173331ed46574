// The example project the demo works on: found next to the package (examples/ at the repository
// root, or dist/examples in a built or installed package), copied to a fresh temporary directory
// so the original never changes.
import { cpSync, existsSync, mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { CliError } from "../cli/errors.js";

export const EXAMPLE = "stats-bug";

/** examples/<name>, looked up from this module's directory (src/demo or dist) upwards. */
export function findExample(name = EXAMPLE, from = dirname(fileURLToPath(import.meta.url))): string {
  let dir = from;
  for (let i = 0; i < 8; i++) {
    const candidate = join(dir, "examples", name);
    if (existsSync(join(candidate, "package.json"))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  throw new CliError(
    `cannot find the example project examples/${name} near ${from}; run tern demo from a tern checkout`,
  );
}

export function copyExample(source: string): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "tern-demo-")));
  const target = join(root, EXAMPLE);
  // Only the project's own node_modules is skipped: an installed copy lives inside one.
  cpSync(source, target, {
    recursive: true,
    filter: (path) => !relative(source, path).split(sep).includes("node_modules"),
  });
  return target;
}
