// "Project servers need the user's approval once": a project's `.mcp.json` can run any command,
// so a server from it starts only after the user said yes, and the yes is remembered for that
// project (by its real path) and that exact configuration (by a hash: an edited entry asks again).
// The CLI asks; this module only decides who needs asking and remembers the answers.

import { createHash } from "node:crypto";
import { mkdir, readFile, realpath } from "node:fs/promises";
import { dirname, join } from "node:path";
import { writeFileAtomic } from "./atomic-write.js";
import type { McpServerConfig, McpServerEntry } from "./config.js";
import { defaultTernHome } from "./load-config.js";

export const APPROVALS_FILE = "mcp-approvals.json";

/**
 * What an approval covers: an MCP server's configuration, or any other setting that runs commands
 * (tern's CLI keeps project hooks' approvals in a store of their own file).
 */
export type ApprovedConfig = McpServerConfig | object;

export interface ApprovalStore {
  isApproved(projectDir: string, server: string, config: ApprovedConfig): Promise<boolean>;
  approve(projectDir: string, server: string, config: ApprovedConfig): Promise<void>;
}

/** A stable hash of a server's configuration (key order does not matter). */
export function configHash(config: ApprovedConfig): string {
  return createHash("sha256").update(canonicalJson(config)).digest("hex");
}

/** The project-scoped servers that the store has not approved for `projectDir`, in order. */
export async function pendingApprovals(
  servers: readonly McpServerEntry[],
  projectDir: string,
  store: ApprovalStore,
): Promise<McpServerEntry[]> {
  const pending: McpServerEntry[] = [];
  for (const entry of servers) {
    if (entry.scope !== "project") continue;
    if (!(await store.isApproved(projectDir, entry.name, entry.config))) pending.push(entry);
  }
  return pending;
}

interface ApprovalFile {
  version: 1;
  /** Project real path -> server name -> config hash. */
  projects: Record<string, Record<string, string>>;
}

/**
 * Approvals in `<home>/mcp-approvals.json` (the CLI: `$TERN_HOME`). An unreadable or corrupt file approves nothing,
 * and `approve` then refuses (with the file's name) rather than overwrite it and lose other projects.
 */
export class FileApprovalStore implements ApprovalStore {
  readonly file: string;

  constructor(options: { home?: string; file?: string } = {}) {
    this.file = options.file ?? join(options.home ?? defaultTernHome(), APPROVALS_FILE);
  }

  async isApproved(projectDir: string, server: string, config: ApprovedConfig): Promise<boolean> {
    const data = await this.read();
    if (data instanceof Error) return false;
    return data.projects[await projectKey(projectDir)]?.[server] === configHash(config);
  }

  async approve(projectDir: string, server: string, config: ApprovedConfig): Promise<void> {
    const data = await this.read();
    if (data instanceof Error) throw data;
    const key = await projectKey(projectDir);
    data.projects[key] = { ...data.projects[key], [server]: configHash(config) };
    await mkdir(dirname(this.file), { recursive: true });
    await writeFileAtomic(this.file, `${JSON.stringify(data, null, 2)}\n`);
  }

  private async read(): Promise<ApprovalFile | Error> {
    let text: string;
    try {
      text = await readFile(this.file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return { version: 1, projects: {} };
      return new Error(`cannot read MCP approvals ${this.file}: ${(error as Error).message}`);
    }
    try {
      const data = JSON.parse(text) as ApprovalFile;
      if (typeof data === "object" && data !== null && typeof data.projects === "object" && data.projects) {
        return data;
      }
    } catch {
      // falls through to the error below
    }
    return new Error(`MCP approvals ${this.file} are corrupt; fix or delete the file`);
  }
}

/** The project's real path, so a symlinked checkout shares its approvals. */
async function projectKey(projectDir: string): Promise<string> {
  try {
    return await realpath(projectDir);
  } catch {
    return projectDir;
  }
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
