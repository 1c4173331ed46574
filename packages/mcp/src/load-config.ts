// Finds and merges the MCP configuration files: the user's `<home>/mcp.json`, the project's
// `.mcp.json`, then files given explicitly (`--mcp-config`). A later file's server replaces an
// earlier one of the same name (the replaced entry is kept in `shadowed`, so a UI can say so).
// Missing user and project files are normal; a missing explicit file is a problem.

import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { type McpConfigProblem, type McpConfigScope, type McpServerEntry, parseMcpConfig } from "./config.js";

export const PROJECT_CONFIG_FILE = ".mcp.json";
export const USER_CONFIG_FILE = "mcp.json";

export interface LoadMcpConfigOptions {
  /** The project root: `.mcp.json` is read from here. Omit to skip project servers. */
  projectDir?: string;
  /** tern's home folder, the host's (the CLI: $TERN_HOME). Default: defaultTernHome(). */
  home?: string;
  /** Extra files, read in order after the others. Relative paths resolve against `cwd`. */
  files?: readonly string[];
  cwd?: string;
  /**
   * The variables `${VAR}` expands from. Default: none, so `${VAR}` without a `:-default` is a
   * problem; a host that wants expansion passes its environment (the CLI passes `process.env`).
   */
  env?: Record<string, string | undefined>;
}

export interface LoadedMcpConfig {
  /** One entry per server name, in first-declared order. */
  servers: McpServerEntry[];
  /** Entries replaced by a later file's server of the same name. */
  shadowed: McpServerEntry[];
  problems: McpConfigProblem[];
}

/** tern's home when the host names none: ~/.tern. The library reads no TERN_HOME; the CLI does. */
export function defaultTernHome(): string {
  return join(homedir(), ".tern");
}

export async function loadMcpConfig(options: LoadMcpConfigOptions = {}): Promise<LoadedMcpConfig> {
  const env = options.env ?? {};
  const cwd = options.cwd ?? process.cwd();
  const sources: { file: string; scope: McpConfigScope; required: boolean }[] = [
    { file: join(options.home ?? defaultTernHome(), USER_CONFIG_FILE), scope: "user", required: false },
  ];
  if (options.projectDir) {
    sources.push({ file: join(options.projectDir, PROJECT_CONFIG_FILE), scope: "project", required: false });
  }
  for (const file of options.files ?? [])
    sources.push({ file: resolve(cwd, file), scope: "extra", required: true });

  const byName = new Map<string, McpServerEntry>();
  const result: LoadedMcpConfig = { servers: [], shadowed: [], problems: [] };
  for (const source of sources) {
    let text: string;
    try {
      text = await readFile(source.file, "utf8");
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" && !source.required) continue;
      result.problems.push({ file: source.file, message: `cannot be read: ${(error as Error).message}` });
      continue;
    }
    const parsed = parseMcpConfig(text, source.file, source.scope, env);
    result.problems.push(...parsed.problems);
    for (const entry of parsed.servers) {
      const earlier = byName.get(entry.name);
      if (earlier) result.shadowed.push(earlier);
      byName.set(entry.name, entry);
    }
  }
  result.servers = [...byName.values()];
  return result;
}
